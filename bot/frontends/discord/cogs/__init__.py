"""One extension per feature of the Discord front end."""

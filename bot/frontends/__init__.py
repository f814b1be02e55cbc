"""The front ends over the one service: Discord (:mod:`~bot.frontends.discord`), e-mail
(:mod:`~bot.frontends.mail`) and the season archive site (:mod:`~bot.frontends.site`). Each offers
``create_front_end(app)`` to ``crusader serve``."""

"""The terminal game: ``chinchon play``, the player against bots in a Textual app.

:mod:`chinchon.tui.app` is the app, :mod:`chinchon.tui.session` the match
behind it, :mod:`chinchon.tui.storage` the saved match and
:mod:`chinchon.tui.rules_text` the rules in words. Importing this package
loads none of them.
"""

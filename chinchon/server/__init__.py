"""The multiplayer server: rooms friends join with a code, played over one WebSocket a client.

``chinchon serve`` runs it; :func:`chinchon.server.app.create_app` builds the
application. The server decides no rule: the engine does, and each client
sees only what its seat's observation holds.
"""

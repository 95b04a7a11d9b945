"""The browser viewer: replays, belief overlays, play against a bot, and a game server's pages.

`blindchess view [FILE|FOLDER]` serves it alone; `blindchess serve` serves it beside the
game server's API. Layout: :mod:`.replay` (a history as a replay document, and what each
side knew at each ply), :mod:`.library` (the games on show), :mod:`.belief_views` and
:mod:`.teaching_views` (the overlays), :mod:`.play_session` (a person against a bot),
:mod:`.state` (all of it behind one object), :mod:`.app` (the routes) and ``static/``
(pages, scripts and the vendored cm-chessboard).
"""

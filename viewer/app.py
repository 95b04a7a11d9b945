"""The viewer's web application: HTML pages, their JSON, and the static files (board component included).

Pages (each a static HTML file whose script asks for the JSON)::

    /                      the games on show, and a link to play
    /game/<id>?ply=&side=  a replay at a ply (the URL follows the page, so it can be shared)
    /play, /play/<sid>     a game against a bot
    /server                leaderboard, games in progress, recent games (with `blindchess serve`)

JSON lives under ``/data/``, away from the game server's ``/api/`` so the two can share
one origin. Bad input never reaches a 500: an unknown game or session is 404, a bad
ply, colour, belief name or move is 400, a file that is not a history is 400 with the
parser's message. Pages answer with a short HTML page saying what is wrong; ``/data/``
answers ``{"error": message}``.
"""

from __future__ import annotations

import json
import logging
from html import escape
from importlib import resources
from typing import Annotated, Any, Optional

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from blindchess.bots.registry import BOTS
from blindchess.server.app import authenticated_user, shielded
from blindchess.server.errors import NotAuthenticated, RemotePlayError, TooManyAttempts
from blindchess.server.service import ServerConfig

from .belief_views import BELIEFS
from .library import UnknownGameError
from .state import PLAYABLE_BOTS, UnknownSessionError, ViewerState, parse_color

logger = logging.getLogger(__name__)

STATIC = resources.files("blindchess.viewer") / "static"


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bot: StrictStr = Field(min_length=1, max_length=64)
    color: StrictStr = Field(pattern="^(white|black)$")
    seconds: float = Field(default=900.0, gt=0, le=86400)
    increment: float = Field(default=5.0, ge=0, le=3600)
    seed: Optional[StrictInt] = None


class SenseBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    square: Optional[StrictInt] = Field(ge=0, le=63)


class MoveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: Optional[StrictStr] = Field(max_length=8, description="UCI, or null to pass")


def _page(name: str) -> HTMLResponse:
    return HTMLResponse((STATIC / name).read_text(encoding="utf-8"))


GAME_DATA = '<script id="game-data" type="application/json">{}</script>'
"""The replay page's slot for its game's JSON (the page draws its boards from it as it loads)."""


def _replay_page(document: dict[str, Any]) -> HTMLResponse:
    """The replay page with its game embedded: the first board draws at page load, with no request before it.

    ``<`` is written as ``\\u003c`` so that no value (a player's name) can close the script element.
    """
    data = json.dumps(document).replace("<", "\\u003c")
    page = (STATIC / "game.html").read_text(encoding="utf-8")
    return HTMLResponse(page.replace(GAME_DATA, GAME_DATA.replace("{}", data)))


def error_page(status: int, message: str) -> HTMLResponse:
    """A short page that says what went wrong, with a way back."""
    title = {400: "Bad request", 404: "Not found"}.get(status, "Error")
    body = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} - blindchess viewer</title>'
        f'<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/viewer.css"></head><body><main class="error-page">'
        f'<h1>{title}</h1><p id="error-message">{escape(message)}</p><p><a href="/">All games</a></p></main></body></html>'
    )
    return HTMLResponse(body, status_code=status)


def _status_of(error: Exception) -> int:
    return 404 if isinstance(error, (UnknownGameError, UnknownSessionError, LookupError)) else 400


async def _player(request: Request) -> Optional[str]:
    """Who starts or plays a game against a bot: the attached server's logged-in user (else 401); None without a server."""
    service = request.app.state.viewer.service
    return None if service is None else (await authenticated_user(request, service)).username


Player = Annotated[Optional[str], Depends(_player)]


def served_viewer(state: ViewerState, body_seconds: Optional[float] = None) -> ASGIApp:
    """What `blindchess view` serves: `build_viewer` behind the game server's request limits.

    The same `shielded` front as `blindchess serve`: a body over the size limit gets 413, and
    one still arriving `body_seconds` after its headers gets 408 and a closed connection
    (without it one slow sender held a connection, and a worker's wait, as long as it liked).
    `body_seconds` None is the game server's default.
    """
    return shielded(build_viewer(state), ServerConfig.body_seconds if body_seconds is None else body_seconds)


def build_viewer(state: ViewerState) -> FastAPI:
    """The viewer application over `state`.

    Attached to a game server (`blindchess serve`), it keeps the server's secrets: a server
    game's record, and anything computed from it, is refused (403) while the game runs, and
    games against a bot need a login (401) and belong to whoever started them.
    """
    app = FastAPI(title="blindchess viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.viewer = state

    def failure(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/data/"):
            return JSONResponse({"error": message}, status_code=status)
        return error_page(status, message)

    @app.exception_handler(RemotePlayError)
    async def server_refused(request: Request, error: RemotePlayError) -> Response:
        response = failure(request, error.status, str(error))
        if isinstance(error, NotAuthenticated):
            response.headers["WWW-Authenticate"] = 'Basic realm="blindchess"'
        if isinstance(error, TooManyAttempts):
            response.headers["Retry-After"] = str(max(1, int(error.retry_after + 0.999)))
        return response


    @app.exception_handler(ValueError)
    async def bad_value(request: Request, error: ValueError) -> Response:
        return failure(request, _status_of(error), str(error))

    @app.exception_handler(LookupError)
    async def not_found(request: Request, error: LookupError) -> Response:
        return failure(request, 404, str(error))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        parts = [f"{'.'.join(str(p) for p in item.get('loc', ()))}: {item.get('msg', 'invalid')}" for item in error.errors()]
        return failure(request, 400, "; ".join(parts) or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        message = f"no page at {request.url.path}" if error.status_code == 404 else str(error.detail)
        return failure(request, error.status_code, message)

    # ---------------------------------------------------------------- pages
    @app.get("/", response_class=HTMLResponse)
    def index() -> HTMLResponse:
        return _page("index.html")

    @app.get("/game/{game_id}", response_class=HTMLResponse)
    def game_page(game_id: str, ply: Optional[int] = None, side: str = "white") -> HTMLResponse:
        document = state.replay(game_id)  # 404 / 400 before the page is sent
        parse_color(side)
        if ply is not None:
            state.check_ply(game_id, ply)
        return _replay_page(document)

    @app.get("/play", response_class=HTMLResponse)
    def play_page() -> HTMLResponse:
        return _page("play.html")

    @app.get("/play/{session_id}", response_class=HTMLResponse)
    def play_session_page(session_id: str, owner: Player) -> HTMLResponse:
        state.session(session_id, owner)
        return _page("play.html")

    @app.get("/server", response_class=HTMLResponse)
    def server_page() -> HTMLResponse:
        if state.service is None:
            raise LookupError("this viewer is not attached to a game server; `blindchess serve` shows this page")
        return _page("server.html")

    # ---------------------------------------------------------------- replay data
    @app.get("/data/games")
    def games() -> dict[str, Any]:
        return {
            "games": [entry.summary() for entry in state.library.entries() if not entry.game_id.startswith("server-")],
            "server": state.service is not None,
        }

    @app.get("/data/games/{game_id}")
    def game(game_id: str) -> dict[str, Any]:
        return state.replay(game_id)

    @app.get("/data/games/{game_id}/belief")
    def belief(
        game_id: str,
        ply: int = Query(ge=0),
        side: str = "white",
        belief: str = "boardset",
        samples: int = Query(default=6, ge=0, le=64),
    ) -> dict[str, Any]:
        return state.belief(game_id, parse_color(side), ply, belief, samples)

    @app.get("/data/games/{game_id}/series")
    def series(game_id: str, side: str = "white", belief: str = "boardset") -> dict[str, Any]:
        return {"series": state.series(game_id, parse_color(side), belief)}

    @app.get("/data/games/{game_id}/teaching")
    def teaching(game_id: str, ply: int = Query(ge=0), side: str = "white") -> dict[str, Any]:
        return state.teaching(game_id, parse_color(side), ply)

    # ---------------------------------------------------------------- play
    @app.get("/data/bots")
    def bots() -> dict[str, Any]:
        return {"offered": list(PLAYABLE_BOTS), "registered": sorted(BOTS), "beliefs": list(BELIEFS)}

    @app.post("/data/play")
    def new_game(body: NewGame, owner: Player) -> dict[str, str]:
        session_id = state.new_session(body.bot, parse_color(body.color), body.seconds, body.increment, body.seed, owner)
        return {"id": session_id}

    @app.get("/data/play/{session_id}")
    def play_state(session_id: str, owner: Player) -> dict[str, Any]:
        return state.session(session_id, owner).state()

    @app.post("/data/play/{session_id}/sense")
    def sense(session_id: str, body: SenseBody, owner: Player) -> dict[str, Any]:
        session = state.session(session_id, owner)
        session.sense(body.square)
        return session.state()

    @app.post("/data/play/{session_id}/move")
    def move(session_id: str, body: MoveBody, owner: Player) -> dict[str, Any]:
        session = state.session(session_id, owner)
        session.move(body.move)
        return session.state()

    @app.post("/data/play/{session_id}/resign")
    def resign(session_id: str, owner: Player) -> dict[str, Any]:
        session = state.session(session_id, owner)
        session.resign()
        return session.state()

    # ---------------------------------------------------------------- server pages
    @app.get("/data/server")
    def server_overview() -> dict[str, Any]:
        return state.server_overview()

    app.mount("/static", StaticFiles(directory=str(STATIC), follow_symlink=True), name="static")  # the editable install links files
    return app


class PathDispatch:
    """ASGI: requests under ``/api/`` (the game server's API) go to `api`, everything else to `pages`."""

    def __init__(self, api: ASGIApp, pages: ASGIApp) -> None:
        self.api, self.pages = api, pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] in ("http", "websocket") else ""
        target = self.api if path.startswith("/api/") or path == "/openapi.json" else self.pages
        await target(scope, receive, send)

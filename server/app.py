"""The HTTP layer: reconchess's HTTP API as a FastAPI application over a :class:`Service`.

Routes follow the reconchess documentation (section "HTTP API") and what the official
client scripts call (``/api/version``, registration, bot versions), plus
``GET /api/ratings/`` for the ranked table. The schema is served at ``/openapi.json``.

Two deliberate leniencies, both for the official client: request bodies are read as
JSON whatever their Content-Type (``RemoteGame`` sends none), and every error is a JSON
object ``{"error": message}`` with a 4xx status; validation problems are 400, not
FastAPI's default 422, as the documentation specifies.

Abuse limits, all before any parsing or authentication: a request body over
`MAX_BODY_BYTES` (by its Content-Length, or as it streams in) is answered 413 without
reading the rest, one that has not arrived `ServerConfig.body_seconds` after its headers
408 (and the connection closed); failed logins are throttled (429 with ``Retry-After``, see
:mod:`.throttle`). A write the database refused is a 503 with ``Retry-After`` (nothing
changed; retry). Every one of these statuses is in the OpenAPI schema.

HTTP basic credentials are decoded as UTF-8 (RFC 7617's ``charset="UTF-8"``; our client
sends them so), falling back to Latin-1 for clients that send that; the service then
normalises names and passwords to NFC.

Endpoints are ``async``: every service call is short (well under a millisecond) and all
are serialised by one lock anyway, so running them on the event loop saves two thread
hand-offs per request (docs/benchmarks.md has the measurement). Only registration and a client's first request (the scrypt
check) run in worker threads.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import sqlite3
from typing import Annotated, Any, Literal, Optional

from fastapi import Depends, FastAPI, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPBasic
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from blindchess import ids
from blindchess.server.codec import decode_move, encode_board, encode_move, encode_win_reason
from blindchess.server.database import UserRow
from blindchess.server.errors import (
    InvalidRequest,
    NotAuthenticated,
    RemotePlayError,
    StoreUnavailable,
    TooManyAttempts,
)
from blindchess.server.service import ServerConfig, Service

logger = logging.getLogger(__name__)

RECONCHESS_VERSION = "1.6.9"
"""What ``GET /api/version`` answers: rc-connect refuses any server whose version differs from its own."""

THROTTLED_ANSWER_DELAY_S = 1.0
"""How long a 429 for too many failed logins takes to arrive (see `remote_play_error`)."""

MAX_BODY_BYTES = 16 * 1024
"""The largest request body accepted (a registration with the longest password is under 2 KiB)."""

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def _canonical_id(value: Any) -> Any:
    """A path's id in its canonical digits only (`blindchess.ids`): pydantic alone reads ``1.0``, ``+1`` and `` 1`` as 1."""
    if isinstance(value, str) and not ids.is_canonical_id(value):
        raise ValueError(ids.RULE)  # the 400's message adds the value sent
    return value


Id = Annotated[int, Path(ge=1, le=2**62, description="A positive id, in digits (12, not 012 or 12.0)."), BeforeValidator(_canonical_id)]


def _integral(value: Any) -> Any:
    """JSON does not tell 61 from 61.0 (JSON Schema's integer includes both); anything else stays as sent."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Registration(_Body):
    username: StrictStr = Field(min_length=1, max_length=64)
    password: StrictStr = Field(min_length=1, max_length=1024)
    email: StrictStr = Field(default="", max_length=256)
    affiliation: StrictStr = Field(default="", max_length=256)


class MaxGames(_Body):
    max_games: Annotated[StrictInt, BeforeValidator(_integral)] = Field(ge=0, le=1000)


class Ranked(_Body):
    ranked: StrictBool


class Invitation(_Body):
    opponent: StrictStr = Field(min_length=1, max_length=64)
    color: StrictBool


class SenseRequest(_Body):
    square: Optional[Annotated[StrictInt, BeforeValidator(_integral)]] = Field(
        ge=0, le=63, description="The centre of the 3x3 window, or null to skip."
    )


class MoveJSON(_Body):
    type: Literal["Move"]
    value: StrictStr = Field(pattern="^[a-h][1-8][a-h][1-8][qrbnk]?$", description="UCI, e.g. e2e4 or a7a8q.")


class MoveRequest(_Body):
    requested_move: Optional[MoveJSON] = Field(description="The move to request, or null to pass.")


class _BasicScheme(HTTPBasic):
    """Declares HTTP basic auth in the schema; decodes nothing (FastAPI's decodes ASCII only: see `_credentials`)."""

    async def __call__(self, request: Request) -> None:  # type: ignore[override]
        return None


_basic = _BasicScheme(auto_error=False)


def _credentials(request: Request) -> tuple[str, str]:
    """(username, password) from the Authorization header, decoded as UTF-8 (else Latin-1); 401 when absent."""
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic" or not encoded:
        raise NotAuthenticated("this endpoint needs HTTP basic auth (username and password)")
    try:
        raw = base64.b64decode(encoded.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise NotAuthenticated("the basic auth credentials are not valid base64") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    username, colon, password = text.partition(":")
    if not colon:
        raise NotAuthenticated("the basic auth credentials have no ':' between name and password")
    return username, password


async def _current_user(request: Request, _scheme: Annotated[Any, Depends(_basic)]) -> UserRow:
    return await authenticated_user(request, request.app.state.service)


async def authenticated_user(request: Request, service: Service) -> UserRow:
    """The user `request` authenticates as (HTTP basic auth against the stored password hash), else 401 (or 429).

    Every request is throttled per name and address first (the peer's address:
    ``X-Forwarded-For`` counts only from a configured proxy, see `make_server`), so a throttled
    address gets 429 for the right password too. Then known credentials are checked on the
    event loop; only the first request of a client pays the slow hash, in a worker thread.
    """
    username, password = _credentials(request)
    address = request.client.host if request.client is not None else ""
    user = service.authenticate(username, password, allow_slow=False, address=address)
    if user is None:
        user = await run_in_threadpool(lambda: service.authenticate(username, password, address=address))
    assert user is not None
    return user


User = Annotated[UserRow, Depends(_current_user)]


class _RequestShield:
    """ASGI middleware in front of everything: the body's size (413) and time (408) limits, then JSON bodies whatever their type.

    The body is read here, at most `MAX_BODY_BYTES` of it and for at most `body_seconds`
    after the headers, before the application (and so authentication and parsing) sees the
    request; it is handed on as one message. (uvicorn's keep-alive timeout does not cover a
    body that trickles in: without the deadline a client sending a byte a second held its
    connection and request open for as long as it liked.)
    """

    def __init__(self, app: ASGIApp, body_seconds: float) -> None:
        self.app = app
        self.body_seconds = body_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            await _error(413, f"request body over {MAX_BODY_BYTES} bytes")(scope, receive, send)
            return

        async def read_body() -> Optional[bytearray]:
            """The body, or only its first `MAX_BODY_BYTES` and a bit; None if the client went away."""
            body = bytearray()
            while len(body) <= MAX_BODY_BYTES:
                message = await receive()
                if message["type"] != "http.request":
                    return None
                body += message.get("body", b"")
                if not message.get("more_body", False):
                    break
            return body

        try:
            # Without either header HTTP/1.1 has no body: no deadline (and no task) needed.
            has_body = length is not None or b"transfer-encoding" in headers
            body = await (asyncio.wait_for(read_body(), self.body_seconds) if has_body else read_body())
        except asyncio.TimeoutError:
            response = _error(408, f"request body not received within {self.body_seconds:g} s")
            response.headers["Connection"] = "close"
            await response(scope, receive, send)
            return
        if body is None:
            return  # the client went away
        if len(body) > MAX_BODY_BYTES:
            await _error(413, f"request body over {MAX_BODY_BYTES} bytes")(scope, receive, send)
            return
        delivered = False

        async def replay() -> Any:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        if scope["method"] == "POST":
            kept = [(key, value) for key, value in scope["headers"] if key.lower() != b"content-type"]
            scope = dict(scope, headers=[*kept, (b"content-type", b"application/json")])
        await self.app(scope, replay, send)


def shielded(app: ASGIApp, body_seconds: float = ServerConfig.body_seconds) -> ASGIApp:
    """`app` behind the request limits (`_RequestShield`): what a server puts in front of everything it serves."""
    return _RequestShield(app, body_seconds)


def _error(status: int, message: str, retry_after: Optional[float] = None) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Basic realm="blindchess"'} if status == 401 else {}
    if retry_after is not None:
        headers["Retry-After"] = str(max(1, int(retry_after + 0.999)))
    return JSONResponse({"error": message}, status_code=status, headers=headers or None)


def _documented(description: str, retry_after: bool = False) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": {"type": "object", "properties": {"error": {"type": "string"}}}}},
    }
    if retry_after:
        response["headers"] = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}
    return response


_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _documented("bad input, or an action at the wrong time"),
    401: _documented("no credentials, or wrong ones"),
    403: _documented("not your game or invitation"),
    404: _documented("no such game, invitation or user"),
    409: _documented("username taken"),
    408: _documented("the request body did not arrive in time"),
    413: _documented(f"request body over {MAX_BODY_BYTES} bytes"),
    429: _documented("too many failed logins lately", retry_after=True),
    503: _documented("the database refused a write; nothing changed, retry", retry_after=True),
}
"""Every status the server answers besides 200, on every operation (FastAPI adds them to the schema)."""


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body") or "body"
        got = "" if "input" not in item or isinstance(item["input"], (dict, list)) else f" (got {item['input']!r:.60})"
        parts.append(f"{where}: {item.get('msg', 'invalid')}{got}")
    return "; ".join(parts) or "invalid request"


def build_app(service: Service) -> ASGIApp:
    """The ASGI application serving `service`: `build_api` behind the request limits."""
    return shielded(build_api(service), service.config.body_seconds)


def build_api(service: Service) -> FastAPI:
    """The reconchess HTTP API over `service` (FastAPI, without the request limits: see `shielded`)."""
    app = FastAPI(title="blindchess RBC server", version=RECONCHESS_VERSION, strict_content_type=False, responses=_RESPONSES)
    app.state.service = service

    @app.exception_handler(RemotePlayError)
    async def remote_play_error(request: Request, error: RemotePlayError) -> JSONResponse:
        retry_after = getattr(error, "retry_after", None) if isinstance(error, (TooManyAttempts, StoreUnavailable)) else None
        if isinstance(error, TooManyAttempts):
            # A throttled guesser waits for its refusal (asleep on the event loop, no thread held):
            # forty threads guessing then cost the server a few requests a second, not hundreds.
            await asyncio.sleep(min(THROTTLED_ANSWER_DELAY_S, error.retry_after))
        return _error(error.status, str(error), retry_after)

    @app.exception_handler(sqlite3.Error)
    async def database_error(request: Request, error: sqlite3.Error) -> JSONResponse:
        logger.warning("database error answering %s: %s", request.url.path, error)
        return _error(503, "the database failed; retry", StoreUnavailable.retry_after)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(400, _validation_message(error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        response = _error(error.status_code, str(error.detail))
        response.headers.update(error.headers or {})
        if error.status_code == 405:  # Starlette lists one route's methods; a path has a route per method
            routes = [route for route in app.routes if isinstance(route, APIRoute) and route.path_regex.match(request.url.path)]
            methods = {method for route in routes for method in route.methods or ()}
            response.headers["Allow"] = ", ".join(sorted(methods))
        return response

    # server and users
    @app.get("/api/version")
    async def version() -> dict[str, str]:
        return {"version": RECONCHESS_VERSION}

    @app.get("/api/users/")
    async def active_users(me: User) -> dict[str, list[str]]:
        return {"usernames": service.active_usernames()}

    @app.post("/api/users/")
    def register(body: Registration, request: Request) -> dict[str, str]:  # a plain def: runs in a worker thread (slow hash)
        address = request.client.host if request.client is not None else ""
        return {"username": service.register(body.username, body.password, body.email, body.affiliation, address)}

    @app.post("/api/users/me")
    async def ping(me: User) -> dict[str, Any]:
        return {"id": me.id, "username": me.username, "max_games": me.max_games}

    @app.post("/api/users/me/max_games")
    async def set_max_games(me: User, body: MaxGames) -> dict[str, Any]:
        return {"id": me.id, "username": me.username, "max_games": service.set_max_games(me, body.max_games)}

    @app.post("/api/users/me/ranked")
    async def set_ranked(me: User, body: Ranked) -> dict[str, Any]:
        return {"id": me.id, "username": me.username, "ranked": service.set_ranked(me, body.ranked)}

    @app.get("/api/users/me/version")
    async def get_version(me: User) -> dict[str, Any]:
        return {"id": me.id, "username": me.username, "version": service.bot_version(me)}

    @app.post("/api/users/me/version")
    async def new_version(me: User) -> dict[str, Any]:
        return {"id": me.id, "username": me.username, "version": service.new_version(me)}

    @app.get("/api/ratings/")
    async def ratings(me: User) -> dict[str, Any]:
        return {"ratings": service.ratings()}

    # invitations
    @app.get("/api/invitations/")
    async def invitations(me: User) -> dict[str, list[int]]:
        return {"invitations": service.invitations(me)}

    @app.post("/api/invitations/")
    async def invite(me: User, body: Invitation) -> dict[str, int]:
        return {"game_id": service.invite(me, body.opponent, body.color)}

    @app.post("/api/invitations/{invitation_id}")
    async def accept(me: User, invitation_id: Id) -> dict[str, int]:
        return {"game_id": service.accept_invitation(me, invitation_id)}

    @app.post("/api/invitations/{invitation_id}/finish")
    async def finish(me: User, invitation_id: Id) -> dict[str, Any]:
        service.finish_invitation(me, invitation_id)
        return {}

    # games: what a player may read
    @app.get("/api/games/{game_id}/color")
    async def color(me: User, game_id: Id) -> dict[str, bool]:
        return {"color": service.game_for(me, game_id)[1]}

    @app.get("/api/games/{game_id}/starting_board")
    async def starting_board(me: User, game_id: Id) -> dict[str, Any]:
        service.game_for(me, game_id)
        return {"board": encode_board(STARTING_FEN)}

    @app.get("/api/games/{game_id}/opponent_name")
    async def opponent_name(me: User, game_id: Id) -> dict[str, str]:
        game, my_color = service.game_for(me, game_id)
        return {"opponent_name": game.names[not my_color]}

    @app.get("/api/games/{game_id}/sense_actions")
    async def sense_actions(me: User, game_id: Id) -> dict[str, list[int]]:
        game, my_color = service.game_for(me, game_id)
        return {"sense_actions": game.sense_actions(my_color)}

    @app.get("/api/games/{game_id}/move_actions")
    async def move_actions(me: User, game_id: Id) -> dict[str, Any]:
        game, my_color = service.game_for(me, game_id)
        return {"move_actions": [encode_move(move) for move in game.move_actions(my_color)]}

    @app.get("/api/games/{game_id}/seconds_left")
    async def seconds_left(me: User, game_id: Id) -> dict[str, float]:
        return {"seconds_left": service.seconds_left(me, game_id)}

    @app.get("/api/games/{game_id}/opponent_move_results")
    async def opponent_move_results(me: User, game_id: Id) -> dict[str, Optional[int]]:
        game, my_color = service.game_for(me, game_id)
        return {"opponent_move_results": game.opponent_move_results(my_color)}

    @app.get("/api/games/{game_id}/is_over")
    async def is_over(me: User, game_id: Id) -> dict[str, bool]:
        return {"is_over": service.game_for(me, game_id)[0].over}

    @app.get("/api/games/{game_id}/is_my_turn")
    async def is_my_turn(me: User, game_id: Id) -> dict[str, bool]:
        game, my_color = service.game_for(me, game_id)
        return {"is_my_turn": game.is_my_turn(my_color)}

    @app.get("/api/games/{game_id}/game_status")
    async def game_status(me: User, game_id: Id) -> dict[str, bool]:
        game, my_color = service.game_for(me, game_id)
        return {"is_my_turn": game.is_my_turn(my_color), "is_over": game.over}

    def result_of(me: UserRow, game_id: int) -> Any:
        game = service.game_for(me, game_id)[0]
        if game.result is None:
            raise _not_over(game_id)
        return game.result

    @app.get("/api/games/{game_id}/winner_color")
    async def winner_color(me: User, game_id: Id) -> dict[str, Optional[bool]]:
        return {"winner_color": result_of(me, game_id).winner_color}

    @app.get("/api/games/{game_id}/win_reason")
    async def win_reason(me: User, game_id: Id) -> dict[str, Any]:
        return {"win_reason": encode_win_reason(result_of(me, game_id).win_reason)}

    @app.get("/api/games/{game_id}/game_history")
    async def game_history(me: User, game_id: Id) -> dict[str, Any]:
        return {"game_history": result_of(me, game_id).history}

    # games: actions
    @app.post("/api/games/{game_id}/ready")
    async def ready(me: User, game_id: Id) -> dict[str, Any]:
        service.ready(me, game_id)
        return {}

    @app.post("/api/games/{game_id}/sense")
    async def sense(me: User, game_id: Id, body: SenseRequest) -> dict[str, Any]:
        return {"sense_result": service.sense(me, game_id, body.square)}

    @app.post("/api/games/{game_id}/move")
    async def move(me: User, game_id: Id, body: MoveRequest) -> dict[str, Any]:
        requested = decode_move(None if body.requested_move is None else body.requested_move.model_dump())
        requested_move, taken_move, capture = service.move(me, game_id, requested)
        return {"move_result": [encode_move(requested_move), encode_move(taken_move), capture]}

    @app.post("/api/games/{game_id}/end_turn")
    async def end_turn(me: User, game_id: Id) -> dict[str, Any]:
        service.end_turn(me, game_id)
        return {}

    @app.post("/api/games/{game_id}/resign")
    async def resign(me: User, game_id: Id) -> dict[str, Any]:
        service.resign(me, game_id)
        return {}

    @app.post("/api/games/{game_id}/error_resign")
    async def error_resign(me: User, game_id: Id) -> dict[str, Any]:
        service.error_resign(me, game_id)
        return {}

    return app


def _not_over(game_id: int) -> RemotePlayError:
    return InvalidRequest(f"game {game_id} is not over yet")

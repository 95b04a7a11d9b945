// The play page: a new-game form, then a game against a bot (sense by click, move by drag).
import {makeBoard, getJSON, postJSON, squareName, squareIndex, withPieces, colorName, MARKER_TYPE} from "/static/board.js"
import {INPUT_EVENT_TYPE} from "/static/vendor/cm-chessboard/src/Chessboard.js"

const $ = (id) => document.getElementById(id)
const sessionId = location.pathname.split("/")[2] || null
let state = null
let ui = null
let busy = false
let stateAt = 0  // when `state` arrived (performance.now()), to run the mover's clock between requests

function fmtClock(seconds) {
    const s = Math.max(0, seconds)
    return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`
}

async function act(path, body) {
    if (busy) return
    busy = true
    $("error").textContent = ""
    try {
        state = await postJSON(`/data/play/${sessionId}/${path}`, body)
        stateAt = performance.now()
    } catch (error) {
        $("error").textContent = error.message
    } finally {
        busy = false
    }
    await render()
}

function onMoveInput(event) {
    if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
        return state.phase === "move" && !busy && event.piece && event.piece[0] === state.color[0]
    }
    if (event.type === INPUT_EVENT_TYPE.validateMoveInput) {
        const uci = event.squareFrom + event.squareTo
        const move = state.move_actions.includes(uci) ? uci : state.move_actions.includes(uci + "q") ? uci + "q" : null
        if (move === null) { $("error").textContent = `${uci} is not a move you may request`; return false }
        act("move", {move})
        return true
    }
    return true
}

async function render() {
    const s = state
    const seen = s.window.filter(([, p]) => p !== null && (p === p.toUpperCase()) !== (s.color === "white"))
    await ui.board.setPosition(withPieces(s.board, seen))
    ui.board.removeMarkers()
    for (const cell of Object.values(ui.cells)) cell.classList.remove("window")
    for (const [square] of s.window) ui.cells[square].classList.add("window")
    if (s.opponent_capture !== null && s.phase !== "over") ui.board.addMarker(MARKER_TYPE.circleDanger, squareName(s.opponent_capture))
    ui.overlay.classList.toggle("clickable", s.phase === "sense" && !busy)
    const rows = [
        ["you play", colorName(s.color) + ` against ${s.bot}`],
        ["clocks", ""],
        ["opponent captured", s.opponent_capture === null ? "nothing" : `your piece on ${squareName(s.opponent_capture)}`],
        ["your last move", s.last_move ? `${s.last_move.requested || "pass"} → ${s.last_move.taken || "nothing"}` + (s.last_move.capture !== null ? `, captured on ${squareName(s.last_move.capture)}` : "") : "—"],
    ]
    if (s.fault) rows.push(["bot fault", s.fault])
    $("facts").replaceChildren(...rows.map(([k, v]) => {
        const tr = document.createElement("tr"); tr.innerHTML = "<td></td><td></td>"
        tr.children[0].textContent = k; tr.children[1].textContent = v
        if (k === "clocks") tr.children[1].id = "clocks"
        return tr
    }))
    tick()
    const status = {sense: "Your turn: click a square to sense around it.", move: "Drag a piece to request a move, or pass.", over: `Game over: ${s.winner ? colorName(s.winner) + " wins" : "draw"} (${s.win_reason || "no result"}).`}[s.phase]
    $("status").textContent = status
    $("skip-sense").disabled = s.phase !== "sense"
    $("pass").disabled = s.phase !== "move"
    $("resign").disabled = s.phase === "over"
    if (s.replay) {
        $("replay-link").hidden = false
        $("replay-link").href = `/game/${encodeURIComponent(s.replay)}`
    }
    document.body.dataset.phase = s.phase
    document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1)
}

/** The clocks, the person's running down while it is their turn (the server's answer is the truth). */
function tick() {
    if (!state || !$("clocks")) return
    const clocks = {...state.clocks}
    if (state.phase === "sense" || state.phase === "move") clocks[state.color] = state.seconds_left - (performance.now() - stateAt) / 1000
    $("clocks").textContent = `White ${fmtClock(clocks.white)} · Black ${fmtClock(clocks.black)}`
    if (clocks[state.color] <= 0 && state.phase !== "over" && !busy) refresh()  // out of time: the server ends the game
}

async function refresh() {
    busy = true
    try { state = await getJSON(`/data/play/${sessionId}`); stateAt = performance.now() } finally { busy = false }
    await render()
}

async function startGame() {
    $("game").hidden = false
    state = await getJSON(`/data/play/${sessionId}`)
    stateAt = performance.now()
    setInterval(tick, 500)
    ui = makeBoard($("board"), state.color)
    ui.board.enableMoveInput(onMoveInput)
    ui.overlay.addEventListener("click", (event) => {
        const cell = event.target.closest(".cell")
        if (cell && state.phase === "sense") act("sense", {square: squareIndex(cell.dataset.square)})
    })
    $("skip-sense").onclick = () => act("sense", {square: null})
    $("pass").onclick = () => act("move", {move: null})
    $("resign").onclick = () => act("resign", {})
    await render()
}

async function showForm() {
    $("new-game").hidden = false
    const bots = await getJSON("/data/bots")
    for (const name of bots.offered) $("bot").appendChild(Object.assign(document.createElement("option"), {value: name, textContent: name}))
    $("new-game").onsubmit = async (event) => {
        event.preventDefault()
        try {
            const body = {bot: $("bot").value, color: $("color").value, seconds: Number($("minutes").value) * 60, increment: Number($("increment").value)}
            const created = await postJSON("/data/play", body)
            location.href = `/play/${created.id}`
        } catch (error) {
            $("form-error").textContent = error.message
        }
    }
    document.body.dataset.phase = "form"
}

(sessionId ? startGame() : showForm()).catch(error => { $("error").textContent = error.message })

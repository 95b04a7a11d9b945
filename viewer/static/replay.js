// The replay page: true board, one side's view, turn facts, stepping, the belief overlays.
import {makeBoard, getJSON, squareName, ownPlacement, withPieces, miniBoard, placementRows, colorName, MARKER_TYPE, ARROW_TYPE} from "/static/board.js"

const gameId = decodeURIComponent(location.pathname.split("/")[2])
const params = new URLSearchParams(location.search)
const $ = (id) => document.getElementById(id)

let doc = null
let ply = 0
let side = params.get("side") === "black" ? "black" : "white"
let heat = params.get("heat") === "1"
let piece = params.get("piece") || "all"
let beliefName = params.get("belief") || null
let beliefRequest = 0
let wholeSeries = null  // the chart over the whole game, once asked for (per side and belief)

let truth = null
let view = null

function truthAt(p) { return p === 0 ? doc.starting_fen : doc.turns[p - 1].fen_after }

/** What `side` saw at ply `p`: its own pieces, plus the opponent's pieces its last sense window showed. */
function viewAt(p) {
    const own = lastTurnOf(side, p)
    const seen = own && own.sense !== null ? own.window.filter(([, s]) => s !== null && (s === s.toUpperCase()) !== (side === "white")) : []
    return withPieces(ownPlacement(truthAt(p), side), seen)
}

function fmtSquare(square) { return square === null || square === undefined ? "—" : squareName(square) }

function fmtClock(seconds) {
    const s = Math.max(0, seconds)
    return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`
}

let urlTimer = null

/** Keep the URL on the shown ply (debounced: Chromium throttles a page that rewrites its URL hundreds of times). */
function updateUrl() {
    clearTimeout(urlTimer)
    urlTimer = setTimeout(writeUrl, 120)
}

function writeUrl() {
    const query = new URLSearchParams({ply: String(ply), side})
    if (heat) query.set("heat", "1")
    if (beliefName && doc && doc.beliefs.length && beliefName !== doc.beliefs[0]) query.set("belief", beliefName)
    if (piece !== "all") query.set("piece", piece)
    history.replaceState(null, "", `${location.pathname}?${query}`)
}

function drawMove(board, turn) {
    if (!turn) return
    if (turn.requested) board.addArrow(ARROW_TYPE.secondary, turn.requested.slice(0, 2), turn.requested.slice(2, 4))
    if (turn.taken) board.addArrow(ARROW_TYPE.success, turn.taken.slice(0, 2), turn.taken.slice(2, 4))
    if (turn.capture !== null) board.addMarker(MARKER_TYPE.circleDanger, squareName(turn.capture))
}

function lastTurnOf(color, upTo) {
    for (let p = upTo; p >= 1; p--) if (doc.turns[p - 1].color === color) return doc.turns[p - 1]
    return null
}

function markWindow(board, cells, turn) {
    for (const cell of Object.values(cells)) cell.classList.remove("window")
    if (!turn || turn.sense === null) return
    for (const [square] of turn.window) cells[square].classList.add("window")
}

function markOffBoard(cells) {
    if (!doc.teaching) return
    const [files, ranks] = doc.teaching_size
    for (const [square, cell] of Object.entries(cells)) {
        cell.classList.toggle("offboard", square % 8 >= files || Math.floor(square / 8) >= ranks)
    }
}

async function render() {
    const turn = ply > 0 ? doc.turns[ply - 1] : null
    // the true board, with the last turn's sense window, requested and taken move, capture
    const own = lastTurnOf(side, ply)
    // both boards redraw together (each waits for an animation frame)
    await Promise.all([truth.board.setPosition(truthAt(ply)), view.board.setPosition(viewAt(ply))])
    truth.board.removeArrows(); truth.board.removeMarkers()
    drawMove(truth.board, turn)
    markWindow(truth.board, truth.cells, turn)
    // the chosen side's own view: its own pieces, plus what its last sense window showed
    view.board.removeArrows(); view.board.removeMarkers()
    if (own) {
        markWindow(view.board, view.cells, own)
        if (own.taken) view.board.addArrow(ARROW_TYPE.success, own.taken.slice(0, 2), own.taken.slice(2, 4))
    }
    const opponentLast = lastTurnOf(side === "white" ? "black" : "white", ply)
    if (opponentLast && opponentLast.capture !== null) view.board.addMarker(MARKER_TYPE.circleDanger, squareName(opponentLast.capture))
    // facts
    $("ply-label").textContent = `ply ${ply} / ${doc.plies}`
    const rows = []
    if (turn) {
        rows.push(["turn", `${colorName(turn.color)} ${turn.number + 1}`])
        rows.push(["learned at start", turn.opponent_capture === null ? "no capture" : `captured on ${fmtSquare(turn.opponent_capture)}`])
        rows.push(["sensed", turn.sense === null ? "no sense" : `${fmtSquare(turn.sense)}: ` + turn.window.map(([s, p]) => `${squareName(s)}=${p || "."}`).join(" ")])
        rows.push(["requested", turn.requested || "pass"])
        rows.push(["taken", turn.taken || (turn.requested ? "nothing (illegal)" : "pass")])
        rows.push(["capture", fmtSquare(turn.capture)])
    } else {
        rows.push(["position", "start"])
    }
    rows.push(["clocks", doc.clocks ? `White ${fmtClock(doc.clocks[ply][0])} · Black ${fmtClock(doc.clocks[ply][1])}` : "not recorded in this file"])
    $("facts").replaceChildren(...rows.map(([k, v]) => {
        const tr = document.createElement("tr")
        tr.innerHTML = "<td></td><td></td>"
        tr.children[0].textContent = k; tr.children[1].textContent = v
        return tr
    }))
    for (const tr of $("turn-list").children) tr.classList.toggle("current", Number(tr.dataset.ply) === ply)
    const current = $("turn-list").querySelector("tr.current")
    if (current) current.scrollIntoView({block: "nearest"})
    updateUrl()
    await renderBelief()
    document.body.dataset.rendered = [ply, side, heat ? 1 : 0, piece].join(":")
}

function drawHeat(values) {
    for (const [square, cell] of Object.entries(view.cells)) {
        const p = values ? values[square] : null
        if (p === null || p === undefined) {
            cell.style.background = ""; cell.textContent = ""; delete cell.dataset.p
        } else {
            cell.dataset.p = String(p)
            cell.style.background = `rgba(214, 40, 40, ${Math.min(0.85, p * 0.85)})`
            cell.textContent = p >= 0.005 ? p.toFixed(2) : ""
        }
    }
    markOffBoard(view.cells)
}

function drawChart(partial) {
    const whole = wholeSeries && wholeSeries.key === `${side}:${beliefName}` ? wholeSeries.series : null
    const series = whole || partial
    const w = 400, h = 130, pad = 28
    const points = series.map((s, i) => s && [i, Math.log10(Math.max(1, s.size)), s.entropy]).filter(Boolean)
    const maxX = Math.max(1, series.length - 1)
    const maxY = Math.max(1, ...points.map(p => Math.max(p[1], p[2] / 3)))
    const x = (i) => pad + (w - 2 * pad) * i / maxX
    const y = (v) => h - pad + 4 - (h - 2 * pad) * v / maxY
    const line = (k) => points.map((p, n) => `${n ? "L" : "M"}${x(p[0]).toFixed(1)},${y(k === 1 ? p[1] : p[2] / 3).toFixed(1)}`).join(" ")
    $("chart").innerHTML = `<svg width="${w}" height="${h}" role="img" aria-label="support size and entropy per ply">
      <path d="${line(1)}" fill="none" stroke="#2f6fb0" stroke-width="2"/>
      <path d="${line(2)}" fill="none" stroke="#c0392b" stroke-width="2" stroke-dasharray="4 3"/>
      <text x="${pad}" y="12" font-size="11" fill="#2f6fb0">log10 support size</text>
      <text x="${pad + 140}" y="12" font-size="11" fill="#c0392b">entropy / 3 (bits)</text>
      <line x1="${x(ply)}" x2="${x(ply)}" y1="${pad - 10}" y2="${h - pad + 4}" stroke="#888" stroke-dasharray="2 2"/>
      <text x="${pad}" y="${h - 4}" font-size="10">ply 0</text><text x="${w - pad - 30}" y="${h - 4}" font-size="10">ply ${maxX}</text>
    </svg>`
}

async function renderBelief() {
    $("belief-side").textContent = colorName(side)
    if (!heat) {
        drawHeat(null)
        $("belief-stats").textContent = "Tick “heat map” to rebuild this side's belief from its observations."
        $("chart").innerHTML = ""; $("samples").replaceChildren(); $("teaching-panel").hidden = true
        return
    }
    const request = ++beliefRequest
    // the boards are already drawn; the belief follows, with a progress bar while the server rebuilds it
    $("belief-stats").textContent = `rebuilding ${colorName(side)}'s belief up to ply ${ply}…`
    $("belief-progress").hidden = false
    let data
    try {
        data = await getJSON(`/data/games/${encodeURIComponent(gameId)}/belief?ply=${ply}&side=${side}&belief=${beliefName}`)
    } catch (error) {
        if (request === beliefRequest) {
            $("belief-progress").hidden = true
            $("belief-stats").textContent = `belief unavailable: ${error.message}`
        }
        return
    }
    if (request !== beliefRequest) return
    $("belief-progress").hidden = true
    const values = piece === "all" ? data.opponent : data.marginals.map(row => row[data.opponent_channels[Number(piece)]])
    drawHeat(values)
    $("belief-stats").textContent = `${data.size.toLocaleString()} boards${data.exact ? "" : " (capped: not exact)"}, entropy ${data.entropy.toFixed(2)} bits, ${data.events} events folded in`
    $("belief-stats").dataset.size = String(data.size)
    drawChart(data.series)
    const files = doc.teaching ? doc.teaching_size[0] : 8, ranks = doc.teaching ? doc.teaching_size[1] : 8
    $("samples").replaceChildren(...data.samples.map((fen, i) => miniBoard(placementRows(fen, files, ranks), `sample ${i + 1}`)))
    if (doc.teaching) await renderTeaching(request)
}

async function renderTeaching(request) {
    const data = await getJSON(`/data/games/${encodeURIComponent(gameId)}/teaching?ply=${ply}&side=${side}`)
    if (request !== beliefRequest) return
    $("teaching-panel").hidden = false
    $("support-size").textContent = String(data.support_size)
    $("support").replaceChildren(...data.support.map(b => miniBoard(b.board, b.probability.toFixed(4), b.truth)))
    const blocks = data.steps.map(step => {
        const box = document.createElement("div")
        const title = document.createElement("p")
        title.textContent = `${step.event}: support ${step.prior_size} → ${step.posterior_size}`
        const table = document.createElement("table")
        table.innerHTML = "<tr><th>board</th><th>prior</th><th>P(o|s)</th><th>posterior</th></tr>"
        for (const row of step.rows) {
            const tr = document.createElement("tr")
            tr.className = (row.truth ? "truth" : "") + (row.likelihood === 0 ? " ruled-out" : "")
            const cell = document.createElement("td")
            cell.appendChild(miniBoard(row.board, row.truth ? "true board" : "", row.truth))
            tr.appendChild(cell)
            for (const v of [row.prior.toFixed(4), row.likelihood.toFixed(0), row.posterior.toFixed(4)]) {
                const td = document.createElement("td"); td.textContent = v; tr.appendChild(td)
            }
            table.appendChild(tr)
        }
        box.append(title, table)
        if (step.more) { const more = document.createElement("p"); more.textContent = `… ${step.more} more boards`; box.appendChild(more) }
        return box
    })
    $("steps").replaceChildren(...(blocks.length ? blocks : [Object.assign(document.createElement("p"), {textContent: "No event reached this side at this ply."})]))
}

function fillTurnList() {
    const start = document.createElement("tr")
    start.dataset.ply = "0"; start.innerHTML = "<td>0</td><td>start</td>"
    const rows = doc.turns.map((t, i) => {
        const tr = document.createElement("tr")
        tr.dataset.ply = String(i + 1)
        tr.innerHTML = "<td></td><td></td><td></td><td></td>"
        tr.children[0].textContent = String(i + 1)
        tr.children[1].textContent = `${t.color === "white" ? "W" : "B"}${t.number + 1}`
        tr.children[2].textContent = t.sense === null ? "—" : squareName(t.sense)
        tr.children[3].textContent = (t.requested || "pass") + (t.taken !== t.requested ? ` → ${t.taken || "nothing"}` : "") + (t.capture !== null ? ` x${squareName(t.capture)}` : "")
        return tr
    })
    $("turn-list").replaceChildren(start, ...rows)
}

/** A game in progress (a server's): fetch it again; at the last ply, follow the new turns. */
async function follow() {
    let fresh
    try { fresh = await getJSON(`/data/games/${encodeURIComponent(gameId)}`) } catch (error) { return }
    if (fresh.plies === doc.plies && fresh.win_reason === doc.win_reason) return
    const atEnd = ply === doc.plies
    doc = Object.assign(fresh, {teaching_size: doc.teaching_size})
    fillTurnList()
    $("result").textContent = resultText()
    await go(atEnd ? doc.plies : ply)
}

function resultText() {
    if (doc.win_reason) return `Result: ${doc.result}`
    return doc.live ? "Game in progress: new turns appear as they are played." : "No result recorded (game unfinished)."
}

function go(p) {
    ply = Math.max(0, Math.min(doc.plies, p))
    return render()
}

function setSide(next) {
    side = next
    $("view-title").textContent = `${colorName(side)}'s view`
    $("view-board").replaceChildren()
    view = makeBoard($("view-board"), side, viewAt(ply))
    markOffBoard(view.cells)
}

/** The game: embedded in the page by the server (so the boards draw as it loads), else asked for. */
function embeddedGame() {
    const data = JSON.parse($("game-data").textContent || "{}")
    return data.turns ? data : null
}

async function main() {
    doc = embeddedGame() || await getJSON(`/data/games/${encodeURIComponent(gameId)}`)
    ply = Math.max(0, Math.min(doc.plies, Number(params.get("ply") || 0)))
    truth = makeBoard($("truth-board"), "white", truthAt(ply))
    document.title = `${doc.white} vs ${doc.black} - blindchess viewer`
    $("title").textContent = `${doc.white} (White) vs ${doc.black} (Black)` + (doc.teaching ? ` · ${doc.teaching}` : "")
    $("result").textContent = resultText()
    if (doc.teaching) doc.teaching_size = {"teaching-4x4": [4, 4], "teaching-4x5": [4, 5], "minichess": [5, 6]}[doc.teaching] || [8, 8]
    markOffBoard(truth.cells)
    const select = $("belief-select")
    for (const name of doc.beliefs) select.appendChild(Object.assign(document.createElement("option"), {value: name, textContent: name}))
    if (!doc.beliefs.includes(beliefName)) beliefName = doc.beliefs[0]
    select.value = beliefName
    $("heatmap-toggle").checked = heat
    $("piece-select").value = piece
    for (const radio of document.querySelectorAll("input[name=side]")) radio.checked = radio.value === side
    setSide(side)
    const list = $("turn-list")
    fillTurnList()
    if (doc.live) setInterval(follow, 3000)
    list.addEventListener("click", (event) => { const tr = event.target.closest("tr"); if (tr) go(Number(tr.dataset.ply)) })
    $("first").onclick = () => go(0)
    $("prev").onclick = () => go(ply - 1)
    $("next").onclick = () => go(ply + 1)
    $("last").onclick = () => go(doc.plies)
    document.addEventListener("keydown", (event) => {
        if (event.target.tagName === "SELECT" || event.target.tagName === "INPUT" && event.target.type !== "checkbox" && event.target.type !== "radio") return
        if (event.key === "ArrowRight") { event.preventDefault(); go(ply + 1) }
        else if (event.key === "ArrowLeft") { event.preventDefault(); go(ply - 1) }
        else if (event.key === "Home") go(0)
        else if (event.key === "End") go(doc.plies)
    })
    $("chart-all").onclick = async () => {
        const key = `${side}:${beliefName}`
        $("chart-all").disabled = true
        try {
            const data = await getJSON(`/data/games/${encodeURIComponent(gameId)}/series?side=${side}&belief=${beliefName}`)
            wholeSeries = {key, series: data.series}
            if (heat) await render()
        } catch (error) {
            $("belief-stats").textContent = `chart unavailable: ${error.message}`
        } finally {
            $("chart-all").disabled = false
        }
    }
    $("heatmap-toggle").onchange = (event) => { heat = event.target.checked; render() }
    select.onchange = (event) => { beliefName = event.target.value; render() }
    $("piece-select").onchange = (event) => { piece = event.target.value; render() }
    for (const radio of document.querySelectorAll("input[name=side]")) radio.onchange = (event) => { setSide(event.target.value); render() }
    await render()
    document.body.dataset.ready = "1"
}

main().catch(error => { $("title").textContent = `cannot show this game: ${error.message}`; $("title").classList.add("error") })

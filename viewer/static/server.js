// The server page: leaderboard, games in progress and recent games, each game linking to its replay.
import {getJSON} from "/static/board.js"

function row(table, cells, href) {
    const tr = document.createElement("tr")
    cells.forEach((text, i) => {
        const td = document.createElement("td")
        if (i === 0 && href) { const a = document.createElement("a"); a.href = href; a.textContent = text; td.appendChild(a) } else td.textContent = text
        tr.appendChild(td)
    })
    document.getElementById(table).appendChild(tr)
}

const data = await getJSON("/data/server")
data.leaderboard.forEach((r, i) => row("leaderboard", [String(i + 1), r.username, String(r.version), r.elo.toFixed(0), String(r.wins), String(r.draws), String(r.losses)]))
const clock = (s) => `${Math.floor(Math.max(0, s) / 60)}:${String(Math.floor(Math.max(0, s) % 60)).padStart(2, "0")}`
for (const g of data.in_progress) row("in-progress", [`#${g.id}`, g.white, g.black, g.turn, `${clock(g.seconds_left.white)} · ${clock(g.seconds_left.black)}`], `/game/${g.replay}`)
for (const g of data.recent) {
    const result = g.winner_color === null ? "draw" : (g.winner_color ? "White wins" : "Black wins")
    row("recent", [`#${g.id}`, g.white, g.black, `${result} (${g.win_reason || "—"})`], `/game/${g.replay}`)
}
document.body.dataset.ready = "1"

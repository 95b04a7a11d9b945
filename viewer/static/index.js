// The index page: every game on show, with a link to its replay (or why it cannot be shown).
import {getJSON} from "/static/board.js"

const data = await getJSON("/data/games")
const table = document.getElementById("games")
document.getElementById("server-link").hidden = !data.server
document.getElementById("empty").hidden = data.games.length > 0
for (const game of data.games) {
    const tr = document.createElement("tr")
    tr.innerHTML = "<td><a></a></td><td></td><td></td><td></td><td></td>"
    const link = tr.querySelector("a")
    link.href = `/game/${encodeURIComponent(game.id)}`
    link.textContent = game.label
    if (game.error) {
        tr.children[1].colSpan = 4
        tr.children[1].className = "error"
        tr.children[1].textContent = game.error
        tr.children[4].remove(); tr.children[3].remove(); tr.children[2].remove()
    } else {
        tr.children[1].textContent = game.white || ""
        tr.children[2].textContent = game.black || ""
        tr.children[3].textContent = String(game.plies ?? "")
        tr.children[4].textContent = game.result  // the winner's colour and name, and how: "white (trout) won by king capture"
    }
    table.appendChild(tr)
}
document.body.dataset.ready = "1"

// Shared helpers of the viewer's pages: the cm-chessboard board, the square overlay, small boards.
import {Chessboard, BORDER_TYPE, COLOR} from "/static/vendor/cm-chessboard/src/Chessboard.js"
import {Markers, MARKER_TYPE} from "/static/vendor/cm-chessboard/src/extensions/markers/Markers.js"
import {Arrows, ARROW_TYPE} from "/static/vendor/cm-chessboard/src/extensions/arrows/Arrows.js"

export {COLOR, MARKER_TYPE, ARROW_TYPE}

const FILES = "abcdefgh"
const GLYPHS = {K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟"}

export const squareName = (square) => FILES[square % 8] + (Math.floor(square / 8) + 1)
export const squareIndex = (name) => FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1)
export const colorName = (c) => c === "white" ? "White" : "Black"

export async function getJSON(url, options = {}) {
    const response = await fetch(url, options)
    const body = await response.json()
    if (!response.ok) throw new Error(body.error || response.statusText)
    return body
}

export const postJSON = (url, body) => getJSON(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})

/** A board in `element` (a .board-box), with markers and arrows, and a square overlay above it; `position` is drawn at once. */
export function makeBoard(element, orientation = "white", position = "8/8/8/8/8/8/8/8") {
    const board = new Chessboard(element, {
        position,
        orientation: orientation === "white" ? COLOR.white : COLOR.black,
        assetsUrl: "/static/vendor/cm-chessboard/assets/",
        style: {borderType: BORDER_TYPE.none, animationDuration: 0},
        extensions: [{class: Markers, props: {autoMarkers: null}}, {class: Arrows}]
    })
    const overlay = document.createElement("div")
    overlay.className = "overlay"
    element.appendChild(overlay)
    const cells = {}
    for (let row = 0; row < 8; row++) {
        for (let col = 0; col < 8; col++) {
            const square = orientation === "white" ? (7 - row) * 8 + col : row * 8 + (7 - col)
            const cell = document.createElement("div")
            cell.className = "cell"
            cell.dataset.square = squareName(square)
            overlay.appendChild(cell)
            cells[square] = cell
        }
    }
    return {board, overlay, cells}
}

/** Only `color`'s pieces of a FEN placement (what that side sees of its own army). */
export function ownPlacement(fen, color) {
    const rows = fen.split(" ")[0].split("/")
    return rows.map(row => row.replace(/[a-zA-Z]/g, ch => {
        const white = ch === ch.toUpperCase()
        return (white === (color === "white")) ? ch : "1"
    }).replace(/\d+/g, digits => String([...digits].reduce((a, d) => a + Number(d), 0)))).join("/")
}

/** A placement with extra pieces set (e.g. what a sense window showed), as a FEN placement. */
export function withPieces(placement, pieces) {
    const grid = []
    for (const row of placement.split("/")) {
        const cells = []
        for (const ch of row) {
            if (/\d/.test(ch)) for (let i = 0; i < Number(ch); i++) cells.push(null); else cells.push(ch)
        }
        grid.push(cells)
    }
    for (const [square, symbol] of pieces) {
        const r = 7 - Math.floor(square / 8), f = square % 8
        grid[r][f] = symbol
    }
    return grid.map(cells => {
        let out = "", empty = 0
        for (const c of cells) { if (c === null) empty++; else { if (empty) out += empty; empty = 0; out += c } }
        return out + (empty ? empty : "")
    }).join("/")
}

/** A small board drawn as a table: `rows` are strings, top rank first ('.' empty). */
export function miniBoard(rows, caption, truth = false) {
    const box = document.createElement("div")
    box.className = "mini" + (truth ? " truth" : "")
    const table = document.createElement("table")
    for (const row of rows) {
        const tr = document.createElement("tr")
        for (const ch of row) {
            const td = document.createElement("td")
            td.textContent = GLYPHS[ch] || ""
            tr.appendChild(td)
        }
        table.appendChild(tr)
    }
    box.appendChild(table)
    const text = document.createElement("div")
    text.textContent = caption
    box.appendChild(text)
    return box
}

/** The rows of a FEN placement, top rank first, cut to `files` x `ranks` (the lower-left corner). */
export function placementRows(fen, files = 8, ranks = 8) {
    const rows = fen.split(" ")[0].split("/").map(row => row.replace(/\d/g, d => ".".repeat(Number(d))))
    return rows.slice(8 - ranks).map(row => row.slice(0, files))
}

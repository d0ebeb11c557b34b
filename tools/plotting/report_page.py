"""The frame of report.html: its style sheet and script, inline so that the file opens from disk
in any browser with no network. The script sorts a table.sortable by a click on a column's
header (again: the other way), or on load by the address's #sort=COLUMN (#sort=-COLUMN:
descending), and marks <body data-ready> when done, or data-error with the first error."""

import html

CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 76rem;
       padding: 0 1rem; color: #1a1a1a; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { margin-top: 2rem; }
.description { color: #444; margin-top: 0; }
.warnings li { color: #8a4b00; }
table { border-collapse: collapse; font-size: .85rem; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid #ddd; text-align: left;
         white-space: nowrap; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; max-width: 100%; }
table.sortable th { cursor: pointer; user-select: none; background: #f4f4f4; position: sticky;
                    top: 0; }
th[aria-sort=ascending]::after { content: " ▲"; }
th[aria-sort=descending]::after { content: " ▼"; }
figure { margin: 1.5rem 0; } figure svg { width: 100%; max-width: 64rem; height: auto; }
figcaption { color: #555; font-size: .85rem; }
pre { background: #f6f6f6; padding: .8rem; overflow-x: auto; font-size: .8rem; }
"""

SCRIPT = """
"use strict";
window.addEventListener("error", (e) => {
  document.body.dataset.error = document.body.dataset.error || String(e.message);
});

function sortValue(cell) {
  const text = cell.textContent.trim();
  const number = Number(text);
  return text === "" ? null : Number.isNaN(number) ? text.toLowerCase() : number;
}

// Empty cells last either way; numbers before words; then ascending or descending.
function compare(a, b, descending) {
  if (a === null || b === null) return (a === null) - (b === null);
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  const order = a < b ? -1 : a > b ? 1 : 0;
  return descending ? -order : order;
}

function sortTable(table, column, descending) {
  const headers = Array.from(table.tHead.rows[0].cells);
  const index = headers.findIndex((th) => th.textContent.trim() === column);
  if (index < 0) throw new Error("no column " + column);
  const body = table.tBodies[0];
  const rows = Array.from(body.rows).map((row, i) => [sortValue(row.cells[index]), i, row]);
  rows.sort((a, b) => compare(a[0], b[0], descending) || a[1] - b[1]);
  body.append(...rows.map((r) => r[2]));
  headers.forEach((th, i) => {
    if (i === index) th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    else th.removeAttribute("aria-sort");
  });
}

for (const table of document.querySelectorAll("table.sortable")) {
  for (const th of table.tHead.rows[0].cells) {
    th.addEventListener("click", () => {
      sortTable(table, th.textContent.trim(), th.getAttribute("aria-sort") === "ascending");
    });
  }
}
const wanted = decodeURIComponent(location.hash.replace(/^#sort=/, ""));
const table = document.querySelector("table.sortable");
if (location.hash.startsWith("#sort=") && table) {
  sortTable(table, wanted.replace(/^-/, ""), wanted.startsWith("-"));
}
document.body.dataset.ready = "1";
"""


def page(title, description, sections):
    """The whole document: sections is a list of (heading, inner HTML)."""
    body = "".join(f'<section><h2>{html.escape(h)}</h2>\n{inner}\n</section>\n'
                   for h, inner in sections)
    desc = f'<p class="description">{html.escape(description)}</p>\n' if description else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{html.escape(title)} · dlsim report</title>\n<style>{CSS}</style>\n'
            f'</head>\n<body>\n<h1>{html.escape(title)}</h1>\n{desc}{body}'
            f'<script>{SCRIPT}</script>\n</body>\n</html>\n')

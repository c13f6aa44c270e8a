// Sorting by a header and filtering by a text box, for every table.grid of this page.
// Numbers sort by their data-sort value (missing ones last), text in the reader's order.
(function () {
  "use strict";
  function key(cell, numeric) {
    if (!cell) return numeric ? NaN : "";
    if (numeric) {
      var v = cell.getAttribute("data-sort");
      return v === null || v === "" ? NaN : parseFloat(v);
    }
    return cell.textContent.trim();
  }
  function sortBy(table, th) {
    var col = Number(th.getAttribute("data-col"));
    var numeric = th.classList.contains("num");
    var was = th.getAttribute("aria-sort");
    // Numbers first biggest first (who won most), text first A to Z; a click again flips.
    var down = was ? was === "ascending" : numeric;
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      if (numeric) {
        if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);
        return down ? y - x : x - y;
      }
      var c = x.localeCompare(y, undefined, {numeric: true, sensitivity: "base"});
      return down ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    table.querySelectorAll("th[aria-sort]").forEach(function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
  }
  document.querySelectorAll("table.grid").forEach(function (table) {
    table.querySelectorAll("th[data-col]").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  });
  // What a row shows: its columns, not the folded details (td.more), whose words ("biggest
  // win") would keep every row for a filter a reader types from what they see ("Big").
  function shownText(row) {
    var parts = [];
    for (var j = 0; j < row.cells.length; j++) {
      if (!row.cells[j].classList.contains("more")) parts.push(row.cells[j].textContent);
    }
    return parts.join("\n").toLowerCase();
  }
  document.querySelectorAll("input.filter").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    var count = document.getElementById(box.getAttribute("data-table") + "-count");
    box.addEventListener("input", function () {
      var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      var rows = table.tBodies[0].rows, shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var t = shownText(rows[i]);
        var hit = words.every(function (w) { return t.indexOf(w) >= 0; });
        rows[i].hidden = !hit;
        shown += hit;
      }
      if (count) {
        count.textContent = words.length ? shown.toLocaleString("en-US") + " of " +
          rows.length.toLocaleString("en-US") + " rows" : "";
      }
    });
  });
})();

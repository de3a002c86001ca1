/* argmatrix: readable prose columns and the platform matrix filter. Static and offline. */
(function () {
  "use strict";

  function headingText(heading) {
    var text = "";
    heading.childNodes.forEach(function (node) {
      if (!(node.classList && node.classList.contains("headerlink"))) text += node.textContent;
    });
    return text.trim();
  }

  function statusOf(cell) {
    var badge = cell.querySelector(".am-badge");
    if (!badge) return "";
    for (var i = 0; i < badge.classList.length; i++) {
      var name = badge.classList[i];
      if (name !== "am-badge" && name.indexOf("am-") === 0) return name.slice(3);
    }
    return "";
  }

  function addOption(select, value, label) {
    var option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  }

  // The argument tables argmatrix lays out: Material's and Zensical's (a table without a class,
  // in .md-typeset) and the Sphinx extension's (class argmatrix-table).
  var TABLES = ".md-typeset table:not([class]), table.argmatrix-table";

  // What each column of a table is. An HTML page names its columns' keys in its first heading
  // (data-am-columns, from render/tables.py), and a Sphinx directive table in a class of each
  // heading (am-column-KEY). Otherwise (a page without HTML, a hand-written table) a column is
  // a status when its cells are badges (the matrix) or its heading is centred (a variant's
  // marks), else what argmatrix's own heading says, else nothing the script moves.
  var KNOWN_HEADINGS = {"Argument": "argument", "Description": "description",
    "Default": "default", "Defaults": "default", "Type / options": "type_options",
    "Type / values": "type_options", "Options": "options", "Type": "type_options",
    "Environment variable": "env", "Stability": "stability", "Added in": "added",
    "Replacement": "replacement", "Server supported": "status", "Note": "note",
    "Meaning": "description", "What it does": "description"};
  var STATUS_KEYS = ["status", "variant"];
  var PROSE_KEYS = ["description", "note"];

  function columnKeys(table) {
    var header = table.querySelectorAll("thead th");
    var marker = header.length ? header[0].querySelector("[data-am-columns]") : null;
    if (marker) {
      var keys = marker.getAttribute("data-am-columns").split(" ");
      if (keys.length === header.length) return keys;
    }
    return Array.prototype.map.call(header, function (th, i) {
      for (var c = 0; c < th.classList.length; c++) {
        if (th.classList[c].indexOf("am-column-") === 0) return th.classList[c].slice(10);
      }
      if (table.querySelector("tbody tr > :nth-child(" + (i + 1) + ") .am-badge")) return "status";
      var align = th.getAttribute("align") || th.style.textAlign;
      if (align === "center") return "variant";
      var text = headingText(th);
      return KNOWN_HEADINGS.hasOwnProperty(text) ? KNOWN_HEADINGS[text] : "other";
    });
  }

  function isArgumentTable(table, keys) {
    return table.classList.contains("argmatrix-table") || keys[0] === "argument";
  }

  function columnCells(table, index) {
    return table.querySelectorAll("tbody tr > :nth-child(" + (index + 1) + ")");
  }

  // Columns of running text (descriptions, notes) get a readable minimum width.
  function markProseColumns() {
    document.querySelectorAll(TABLES).forEach(function (table) {
      columnKeys(table).forEach(function (key, i) {
        if (PROSE_KEYS.indexOf(key) === -1) return;
        columnCells(table, i).forEach(function (cell) { cell.classList.add("am-prose"); });
      });
    });
  }

  // On a phone, an argument table becomes one card per row: the flag and its support side by
  // side on the first line, the other cells below, each labelled with its column's heading.
  // Support columns are the status and variant columns, and only those: a column the script
  // does not know stays where it is.
  function markArgumentTables() {
    document.querySelectorAll(TABLES).forEach(function (table) {
      if (table.hasAttribute("data-am-arguments")) return;  // marked before its columns moved
      var header = table.querySelectorAll("thead th");
      if (!header.length) return;
      var keys = columnKeys(table);
      if (!isArgumentTable(table, keys)) return;
      // A data attribute, not a class: Material styles only tables without a class.
      table.setAttribute("data-am-arguments", "");
      var support = 0;
      for (var i = 0; i < header.length; i++) {
        var label = headingText(header[i]);
        var isSupport = i > 0 && STATUS_KEYS.indexOf(keys[i]) !== -1;
        if (isSupport) support++;
        var key = keys[i];
        columnCells(table, i).forEach(function (cell) {
          cell.setAttribute("data-am-label", label);
          cell.setAttribute("data-am-column", key);
          if (isSupport) cell.classList.add("am-support");
        });
        if (isSupport) header[i].setAttribute("data-am-support-heading", "");
      }
      if (support) table.setAttribute("data-am-support", "");
      // Cells that are all badges (the matrix): the flag gets a line of its own on a phone.
      if (table.querySelector("td.am-support .am-badge")) table.setAttribute("data-am-badges", "");
    });
  }

  // The status columns come first after the flag, on every width: a wide table (descriptions,
  // defaults) then scrolls those away, never the answer a reader came for. The Markdown keeps
  // its order; only the page shown is rearranged, header and cells alike.
  function supportFirst(table) {
    table.querySelectorAll("tr").forEach(function (tr) {
      var cells = Array.prototype.slice.call(tr.children);
      var support = cells.filter(function (cell, i) {
        return i > 0 && (cell.classList.contains("am-support") || cell.getAttribute("data-am-support-heading") !== null);
      });
      var after = cells[0];
      support.forEach(function (cell) {
        after.insertAdjacentElement("afterend", cell);
        after = cell;
      });
    });
  }

  // While a wide table scrolls sideways, the flag and the status columns stay in place: each
  // status column is pinned just right of the ones before it (Material's wrapper scrolls).
  function pinSupport(table) {
    var header = table.querySelectorAll("thead th");
    var left = header.length ? header[0].getBoundingClientRect().width : 0;
    for (var i = 1; i < header.length; i++) {
      if (header[i].getAttribute("data-am-support-heading") === null) break;
      var offset = left + "px";
      var column = [header[i]].concat(Array.prototype.slice.call(
        table.querySelectorAll("tbody tr > :nth-child(" + (i + 1) + ")")));
      column.forEach(function (cell) {
        cell.classList.add("am-pinned");
        cell.style.setProperty("--am-left", offset);
      });
      left += header[i].getBoundingClientRect().width;
    }
  }

  // The value form after a flag (`--tp N`: the `N`; `{auto,pt,...}`) may wrap; the flag never
  // does. The Sphinx directive gives each its class (option, argmatrix-value); otherwise a name
  // follows the anchor, a line break or ", ", and the value form a space.
  function markValueForms(table) {
    table.querySelectorAll("tbody tr > td:first-child").forEach(function (cell) {
      cell.querySelectorAll("code").forEach(function (code, i) {
        if (i === 0 || code.classList.contains("option")) return;
        var before = code.previousSibling;
        var spaced = before && before.nodeType === 3 && !before.textContent.trim();
        if (spaced || code.classList.contains("argmatrix-value")) {
          code.classList.add("am-value");
          splitValueForm(code);
        }
      });
    });
  }

  // A value form wraps where a reader expects a line to end: after a choice's comma or a `|`,
  // and at its spaces (`NAME [NAME ...]`), never inside a name or a choice. Each piece is a
  // span kept on one line (argmatrix.css: am-piece), with a break allowed after its comma.
  var VALUE_PIECES = /\s+|[^\s,|]*[,|]|[^\s,|]+/g;

  function splitValueForm(code) {
    if (code.querySelector(".am-piece")) return;
    var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    var texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    texts.forEach(function (text) {
      var pieces = text.textContent.match(VALUE_PIECES);
      if (!pieces) return;
      var parts = document.createDocumentFragment();
      pieces.forEach(function (piece) {
        if (!piece.trim()) { parts.appendChild(document.createTextNode(piece)); return; }
        var span = document.createElement("span");
        span.className = "am-piece";
        span.textContent = piece;
        parts.appendChild(span);
        if (/[,|]$/.test(piece)) parts.appendChild(document.createElement("wbr"));
      });
      text.parentNode.replaceChild(parts, text);
    });
  }

  // A flag named in another cell (a description's `--enable-foo`, "one of `--a`, `--b`", a
  // replacement) is never broken inside either: its code is marked (am-flag, argmatrix.css keeps
  // it on one line; fitNamedFlags makes it fit). Only code that is a flag alone: a value or a
  // command line in code wraps.
  var FLAG = /^--?[A-Za-z][A-Za-z0-9_-]*$/;

  function markNamedFlags(table) {
    table.querySelectorAll("tbody tr > td:not(:first-child) code").forEach(function (code) {
      if (FLAG.test(code.textContent.trim())) code.classList.add("am-flag");
    });
  }

  // Cells with nothing in them (a Note column where only some rows have a note) are not shown
  // as an empty "Note:" line on a card.
  function markEmptyCells(table) {
    table.querySelectorAll("tbody td").forEach(function (cell) {
      if (!cell.textContent.trim() && !cell.querySelector("img, svg")) cell.classList.add("am-empty");
    });
  }

  // An argument table is shown as cards (data-am-cards, argmatrix.css) on a phone, and on a
  // wider screen when it would not fit its column as a table (a long flag beside many columns):
  // no column is ever cut off or scrolled out of sight. Every table is measured as a table
  // first, all at once (one layout for the page, not one per table).
  var PHONE = window.matchMedia ? window.matchMedia("(max-width: 44.9375em)") : null;

  // Whether a table is wider than the text column it is in (Material's article, a Sphinx
  // theme's body; not Material's scrolling wrapper, which reaches into the margins).
  function tooWide(table) {
    var column = table.closest(".md-typeset") || table.parentElement;
    var style = getComputedStyle(column);
    var room = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    var width = table.getBoundingClientRect().width;
    return width > 0 && width > room + 1;
  }

  function fitTables(tables) {
    tables.forEach(function (table) {
      table.removeAttribute("data-am-cards");
      table.setAttribute("data-am-measuring", "");  // flags named in cells wrap meanwhile
    });
    document.querySelectorAll("table[data-am-arguments] code.am-flag")
      .forEach(function (code) { code.style.fontSize = ""; });
    var phone = PHONE !== null && PHONE.matches;
    var cards = tables.filter(function (table) { return phone || tooWide(table); });
    cards.forEach(function (table) {
      table.setAttribute("data-am-cards", "");
      table.querySelectorAll(".am-pinned").forEach(function (cell) {
        cell.classList.remove("am-pinned");
      });
    });
    fitFlags(cards);
    fitNamedFlags(tables);
  }

  // A flag named in a cell (am-flag) is kept on one line only once the tables are laid out
  // without it (data-am-measuring): its column is as wide as the other cells make it, never
  // widened by the flag, so no table turns into cards or scrolls for it. One longer than its
  // cell (a 40-letter flag in a phone's card) gets smaller until it fits; its width on one line
  // is the sum of its pieces' on the lines it wraps over meanwhile.
  function fitNamedFlags(tables) {
    var named = [];
    tables.forEach(function (table) {
      table.querySelectorAll("tbody td code.am-flag").forEach(function (code) { named.push(code); });
    });
    var sizes = named.map(function (code) {
      var cell = code.closest("td");
      if (!code.getClientRects().length) return 0;
      var style = getComputedStyle(cell);
      var room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      var width = 0;
      Array.prototype.forEach.call(code.getClientRects(), function (rect) { width += rect.width; });
      if (width <= room - 1 || room <= 0) return 0;
      return parseFloat(getComputedStyle(code).fontSize) * (room - 1) / width;
    });
    named.forEach(function (code, i) {
      if (sizes[i]) code.style.fontSize = Math.floor(sizes[i] * 10) / 10 + "px";
    });
    tables.forEach(function (table) { table.removeAttribute("data-am-measuring"); });
  }

  // A flag is never broken inside: on a card narrower than the flag (a phone, a 60-letter flag)
  // its letters get smaller until it fits. One that would shrink below MIN_SCALE beside its
  // support gets the card's first line to itself first. A value form's piece longer than the
  // card (a 40-letter metavar) gets smaller the same way. Every width is read, then written.
  var MIN_SCALE = 0.8;

  // A flag's width, or a value form's widest piece (the most it cannot wrap).
  function unbreakableWidth(code) {
    if (!code.classList.contains("am-value")) return code.getBoundingClientRect().width;
    var widest = 0;
    code.querySelectorAll(".am-piece").forEach(function (piece) {
      widest = Math.max(widest, piece.getBoundingClientRect().width);
    });
    return widest;
  }

  function flagScales(flags) {
    return flags.map(function (code) {
      var cell = code.closest("td");
      if (!cell.getClientRects().length) return 1;
      var style = getComputedStyle(cell);
      var room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      var width = unbreakableWidth(code);
      return width > room && room > 0 ? room / width : 1;
    });
  }

  function fitFlags(tables) {
    document.querySelectorAll("table[data-am-arguments] tbody tr > td:first-child code")
      .forEach(function (code) { code.style.fontSize = ""; });
    document.querySelectorAll("tr[data-am-own-line]").forEach(function (tr) {
      tr.removeAttribute("data-am-own-line");
    });
    // The flags and their value forms; only a flag decides whether it needs a line of its own.
    var flags = [];
    tables.forEach(function (table) {
      table.querySelectorAll("tbody tr > td:first-child code")
        .forEach(function (code) { flags.push(code); });
    });
    var scales = flagScales(flags);
    flags.forEach(function (code, i) {
      var tr = code.closest("tr");
      if (scales[i] < MIN_SCALE && !code.classList.contains("am-value") &&
          tr.querySelector("td.am-support")) {
        tr.setAttribute("data-am-own-line", "");
      }
    });
    scales = flagScales(flags);
    var sizes = flags.map(function (code, i) {
      return scales[i] < 1 ? parseFloat(getComputedStyle(code).fontSize) * scales[i] : 0;
    });
    flags.forEach(function (code, i) {
      if (sizes[i]) code.style.fontSize = Math.floor(sizes[i] * 10) / 10 + "px";
    });
  }

  function arrangeArgumentTables() {
    var tables = Array.prototype.slice.call(document.querySelectorAll("table[data-am-arguments]"));
    tables.forEach(function (table) {
      if (table.getAttribute("data-am-arranged")) return;
      table.setAttribute("data-am-arranged", "1");
      // Material's and Zensical's tables; a Sphinx theme's keep their order.
      if (table.closest(".md-typeset") && table.hasAttribute("data-am-support")) supportFirst(table);
      markValueForms(table);
      markNamedFlags(table);
      markEmptyCells(table);
    });
    fitTables(tables);
    tables.forEach(function (table) {
      if (table.closest(".md-typeset") && !table.hasAttribute("data-am-cards")) pinSupport(table);
    });
  }

  // A badge with a reason after it (the matrix: not supported, not applicable) can be focused
  // and tapped: the reason opens below it (hover shows it too, in CSS).
  function initReasons() {
    document.querySelectorAll(".md-typeset .am-badge + .am-why").forEach(function (why) {
      var badge = why.previousElementSibling;
      if (badge.hasAttribute("tabindex")) return;
      badge.setAttribute("tabindex", "0");
      badge.setAttribute("role", "button");
      badge.setAttribute("aria-expanded", "false");
      badge.addEventListener("click", function () {
        var open = why.parentElement.classList.toggle("am-open");
        badge.setAttribute("aria-expanded", open ? "true" : "false");
      });
      badge.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); badge.click(); }
      });
    });
  }

  // A platform page whose intro links to the Server Arguments page (a marker follows that link):
  // each flag links to its row there, where its description, default and type are.
  function linkFlags() {
    var marker = document.querySelector("[data-am-server-arguments]");
    var link = marker && marker.previousElementSibling;
    if (!link || link.tagName !== "A") return;
    var page = link.getAttribute("href").split("#")[0];
    document.querySelectorAll("table[data-am-arguments] td:first-child > a[id]").forEach(function (anchor) {
      var cell = anchor.parentElement;
      if (cell.querySelector("a[href]:not(.am-permalink)")) return;
      var target = document.createElement("a");
      target.href = page + "#" + encodeURIComponent(anchor.id);
      target.className = "am-flag-link";
      target.title = "Description, default and type: Server Arguments";
      var code = cell.querySelector("code");
      if (!code) return;
      cell.insertBefore(target, code);
      target.appendChild(code);
    });
  }

  // A status page's "Server supported" cells are text a reader reads without this script: the
  // status's symbol and word ("✓ Supported", STATUS_ICONS and STATUS_LABELS in
  // argmatrix/model/platform.py), then in parentheses the variants that support it or the reason
  // it is not supported. Each symbol and word becomes the badge of its status; what follows stays
  // text beside it.
  var STATUS_OF_ICON = {"\u2713": "supported", "\u25d0": "experimental", "\u25f7": "planned",
    "\u2717": "unsupported", "\u2013": "not-applicable", "?": "unverified",
    "\u25cb": "unclassified"};
  var LABELS = {"supported": "Supported", "experimental": "Experimental", "planned": "Planned",
    "unsupported": "Not supported", "not-applicable": "Not applicable",
    "unverified": "Unverified", "unclassified": "Not classified"};

  function badgeStatusCells() {
    document.querySelectorAll("table[data-am-arguments] td.am-support").forEach(function (cell) {
      if (cell.children.length || cell.getAttribute("data-am-label") !== "Server supported") return;
      var text = cell.textContent.trim();
      var status = STATUS_OF_ICON[text.charAt(0)];
      if (!status) return;
      var word = text.charAt(0) + " " + LABELS[status];
      if (text.indexOf(word) !== 0) return;
      var badge = document.createElement("span");
      badge.className = "am-badge am-text-badge am-" + status;
      badge.textContent = word;
      cell.textContent = "";
      cell.appendChild(badge);
      var rest = text.slice(word.length).trim();
      if (rest) {
        var detail = document.createElement("span");
        detail.className = "am-detail";
        detail.textContent = " " + rest;
        cell.appendChild(detail);
      }
    });
  }

  // A usage synopsis (a console code block on a page of argument tables, shaped as argmatrix
  // writes one: its first line starts the program, each line after it indented the same) wraps
  // at the block's width instead of scrolling sideways (a phone): each of its lines is a span
  // of its own (am-usage-line, argmatrix.css) whose wrapped part hangs under the usage's
  // indentation, as argparse wraps a usage, broken at its spaces or after a choice's comma,
  // never inside a flag (`--log-format`: its pieces, as a value form's). The text is kept as
  // written (a continued line's indentation in a span the stylesheet hides: the hang stands
  // for it); a console block of another shape is left as it is. Zensical's highlighter names
  // no language on the block: a console block there is one Pygments' console lexer read, its
  // first line the program's output (`span.go`), never a prompt.
  var USAGE_BLOCKS = "pre:has(> code.language-console), .language-console pre, " +
    "div.highlight-console pre, div.highlight > pre:has(> code > span.go:first-child)";

  function usageIndent(lines) {
    if (!lines[0] || /^\s/.test(lines[0])) return -1;
    if (lines.length === 1) return 4;
    var indent = lines[1].match(/^ */)[0].length;
    for (var i = 1; i < lines.length; i++) {
      var own = lines[i].match(/^ */)[0].length;
      if (own !== indent || indent === 0 || !lines[i].trim()) return -1;
    }
    return indent;
  }

  function usageLine(line, last) {
    var span = document.createElement("span");
    span.className = "am-usage-line";
    var indent = line.match(/^ */)[0];
    if (indent) span.classList.add("am-continued");
    (line.slice(indent.length).match(VALUE_PIECES) || []).forEach(function (piece) {
      if (!piece.trim()) { span.appendChild(document.createTextNode(piece)); return; }
      var part = document.createElement("span");
      part.className = "am-piece";
      part.textContent = piece;
      if (indent) {  // a continued line's indentation is the hang (argmatrix.css), kept as text
        var space = document.createElement("span");
        space.className = "am-usage-indent";
        space.textContent = indent;
        part.insertBefore(space, part.firstChild);
        indent = "";
      }
      span.appendChild(part);
      if (/[,|]$/.test(piece)) span.appendChild(document.createElement("wbr"));
    });
    if (!last) span.appendChild(document.createTextNode("\n"));
    return span;
  }

  function wrapUsages() {
    if (!document.querySelector("table[data-am-arguments]")) return;
    document.querySelectorAll(USAGE_BLOCKS).forEach(function (pre) {
      if (pre.hasAttribute("data-am-usage")) return;
      var holder = pre.querySelector("code") || pre;
      var lines = holder.textContent.replace(/\n+$/, "").split("\n");
      var indent = usageIndent(lines);
      if (indent < 0) return;
      pre.setAttribute("data-am-usage", "");
      pre.style.setProperty("--am-hang", indent + "ch");
      holder.textContent = "";
      lines.forEach(function (line, i) {
        holder.appendChild(usageLine(line, i === lines.length - 1));
      });
    });
  }

  function init() {
    initReasons();
    markProseColumns();
    markArgumentTables();
    linkFlags();
    badgeStatusCells();
    arrangeArgumentTables();
    wrapUsages();
    initFilter();
  }

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(arrangeArgumentTables, 100);
  });

  function initFilter() {
    var form = document.querySelector("form[data-am-matrix-filter]");
    if (!form || form.getAttribute("data-am-ready")) return;
    form.setAttribute("data-am-ready", "1");
    var controls = form.elements;
    var groups = [];
    var total = 0;
    form.parentElement.querySelectorAll("table").forEach(function (table) {
      if (!table.querySelector(".am-badge")) return;
      var block = table.closest(".md-typeset__scrollwrap") || table;
      var heading = block.previousElementSibling;
      while (heading && heading.tagName !== "H2") heading = heading.previousElementSibling;
      var rows = [];
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        var cells = Array.prototype.slice.call(tr.cells);
        rows.push({
          tr: tr,
          text: cells[0].textContent.toLowerCase(),
          statuses: cells.slice(1).map(statusOf)
        });
      });
      total += rows.length;
      groups.push({ block: block, heading: heading, title: heading ? headingText(heading) : "", rows: rows });
    });
    if (!groups.length) return;

    groups.forEach(function (group) {
      if (group.title) addOption(controls.section, group.title, group.title);
    });
    var header = groups[0].block.querySelectorAll("thead th");
    for (var i = 1; i < header.length; i++) addOption(controls.column, String(i - 1), header[i].textContent.trim());

    function apply() {
      var query = controls.flag.value.trim().toLowerCase();
      var section = controls.section.value;
      var status = controls.status.value;
      var column = controls.column.value;
      var shown = 0;
      groups.forEach(function (group) {
        var visible = 0;
        group.rows.forEach(function (row) {
          var ok = (!section || group.title === section) &&
            (!query || row.text.indexOf(query) !== -1) &&
            (!status || (column === "" ? row.statuses.indexOf(status) !== -1
                                       : row.statuses[Number(column)] === status));
          row.tr.hidden = !ok;
          if (ok) visible++;
        });
        group.block.hidden = visible === 0;
        if (group.heading) group.heading.hidden = visible === 0;
        shown += visible;
      });
      controls.count.value = "Showing " + shown + " of " + total + " arguments";
    }

    var initial = new URLSearchParams(window.location.search).get("q");
    if (initial) controls.flag.value = initial;
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;
    apply();
  }

  // Search: Material's query syntax reads a leading '-' as "must not contain", so a query for
  // '--page-size' would find nothing. Before a query reaches the search worker (message type 2),
  // each such flag becomes the phrase "page size": both words required, as the index splits
  // flags at '-'.
  var post = window.Worker && Worker.prototype.postMessage;
  if (post) {
    Worker.prototype.postMessage = function (message) {
      var args = Array.prototype.slice.call(arguments);
      if (message && message.type === 2 && typeof message.data === "string") {
        args[0] = { type: 2, data: flagsAsPhrases(message.data) };
      }
      return post.apply(this, args);
    };
  }

  function flagsAsPhrases(query) {
    return query.replace(/(^|\s)--+([A-Za-z0-9][\w-]*)/g, function (match, before, flag) {
      return before + '"' + flag.replace(/-+/g, " ") + '"';
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);  // Material: also after instant navigation
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

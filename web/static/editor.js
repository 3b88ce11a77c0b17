/* The board editor (/positions?edit=1): place and remove pieces, set the hands and the side to
 * move; the position string is written as it changes, and the server's rules core says why a
 * position could not occur (GET /api/position-check).  The page's data is in
 * <script id="editor-data"> (web/editor.py); the board is drawn empty by the server.
 */
(function () {
  "use strict";
  var SVG_NS = "http://www.w3.org/2000/svg";
  var source = document.getElementById("editor-data");
  var svg = document.getElementById("editor-board");
  if (!source || !svg) return;
  var data = JSON.parse(source.textContent);
  var files = data.files, ranks = data.ranks;
  var cell = +svg.getAttribute("data-cell"), margin = +svg.getAttribute("data-margin");
  var pieceLayer = svg.querySelector("g.pieces"), marks = svg.querySelector("g.highlights");
  var output = document.getElementById("editor-position");
  var problemsBox = document.getElementById("editor-problems");
  var searchLink = document.getElementById("editor-search");
  var toolLabel = document.getElementById("editor-tool");
  var squareField = document.getElementById("editor-square");
  var eraser = document.getElementById("editor-erase");
  var byId = {};
  data.types.forEach(function (t) { byId[t.id] = t; });
  var byToken = {};
  data.types.forEach(function (t) { byToken[t.tokens[0]] = [t.id, 0]; byToken[t.tokens[1]] = [t.id, 1]; });

  var board = {};  // square -> [piece ID, colour]
  var hands = [{}, {}];  // piece ID -> count, per colour
  var turn = "b";
  var tool = null;  // [piece ID, colour], or "erase"

  function load(position) {
    board = {};
    Object.keys(position.pieces).forEach(function (sq) { board[sq] = byToken[position.pieces[sq]]; });
    hands = [Object.assign({}, position.hands[0]), Object.assign({}, position.hands[1])];
    turn = position.turn;
    changed();
  }

  /* --- the position string ----------------------------------------------------------------- */

  function positionString() {
    var rows = [];
    for (var r = ranks - 1; r >= 0; r--) {
      var row = "", empty = 0;
      for (var f = 0; f < files; f++) {
        var piece = board[String.fromCharCode(97 + f) + (r + 1)];
        if (!piece) { empty++; continue; }
        if (empty) { row += empty; empty = 0; }
        row += byId[piece[0]].tokens[piece[1]];
      }
      rows.push(row + (empty ? empty : ""));
    }
    var hand = "";
    [0, 1].forEach(function (colour) {
      data.types.forEach(function (t) {
        var n = hands[colour][t.id] || 0;
        if (n) hand += (n > 1 ? n : "") + t.tokens[colour];
      });
    });
    return rows.join("/") + " " + turn + " " + (hand || "-") + " 1";
  }

  /* --- drawing ----------------------------------------------------------------------------- */

  function corner(square) {
    var f = square.charCodeAt(0) - 97, r = parseInt(square.slice(1), 10) - 1;
    return [margin + f * cell, margin + (ranks - 1 - r) * cell];
  }

  function draw() {
    while (pieceLayer.firstChild) pieceLayer.firstChild.remove();
    Object.keys(board).forEach(function (square) {
      var piece = board[square], xy = corner(square);
      var inset = Math.round(cell * 0.04);
      var use = document.createElementNS(SVG_NS, "use");
      use.setAttribute("href", "#" + byId[piece[0]].symbol);
      use.setAttribute("class", "piece " + (piece[1] ? "gote" : "sente"));
      use.setAttribute("data-sq", square);
      use.setAttribute("data-piece", piece[0]);
      use.setAttribute("x", xy[0] + inset);
      use.setAttribute("y", xy[1] + inset);
      use.setAttribute("width", cell - 2 * inset);
      use.setAttribute("height", cell - 2 * inset);
      if (piece[1]) use.setAttribute("transform", "rotate(180 " + (xy[0] + cell / 2) + " " + (xy[1] + cell / 2) + ")");
      pieceLayer.appendChild(use);
    });
    [0, 1].forEach(function (colour) {
      var box = document.querySelector("#editor-hand-" + (colour ? "gote" : "sente") + " .hand-pieces");
      if (!box) return;
      box.textContent = "";
      data.types.forEach(function (t) {
        var n = hands[colour][t.id] || 0;
        if (!n) return;
        var button = document.createElement("button");
        button.type = "button";
        button.className = "hand-piece";
        button.setAttribute("data-piece", t.id);
        button.title = "Take one " + t.id + " out of the hand";
        button.textContent = t.id + (n > 1 ? " \u00d7" + n : "");
        box.appendChild(button);
      });
      if (!box.firstChild) {
        var none = document.createElement("span");
        none.className = "muted";
        none.textContent = "none";
        box.appendChild(none);
      }
    });
    document.querySelectorAll("input[name=editor-turn]").forEach(function (radio) { radio.checked = radio.value === turn; });
  }

  function markProblems(squares) {
    while (marks.firstChild) marks.firstChild.remove();
    squares.forEach(function (square) {
      var xy = corner(square);
      var rect = document.createElementNS(SVG_NS, "rect");
      rect.setAttribute("class", "hl-error");
      rect.setAttribute("data-sq", square);
      rect.setAttribute("x", xy[0]);
      rect.setAttribute("y", xy[1]);
      rect.setAttribute("width", cell);
      rect.setAttribute("height", cell);
      marks.appendChild(rect);
    });
  }

  /* --- checking ------------------------------------------------------------------------------ */

  var checkTimer = null, asked = 0;
  var BLOCKING = {syntax: 1, "not-to-move-in-check": 1};  // position search refuses these

  function query(position) {
    var q = new URLSearchParams({variant: data.variant, position: position});
    if (data.ruleset) q.set("ruleset", data.ruleset);
    return q.toString();
  }

  function check(position) {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(function () {
      var mine = ++asked;
      fetch(data.check_url + "?" + query(position)).then(function (r) { return r.json(); }).then(function (result) {
        if (mine !== asked) return;
        problemsBox.textContent = "";
        var squares = [];
        var blocked = false;
        if (!result.problems) {
          problemsBox.textContent = result.error ? result.error.message : "The position could not be checked.";
          blocked = true;
        } else if (!result.problems.length) {
          var ok = document.createElement("p");
          ok.className = "ok";
          ok.textContent = "A possible position.";
          problemsBox.appendChild(ok);
        } else {
          var list = document.createElement("ul");
          result.problems.forEach(function (p) {
            var li = document.createElement("li");
            li.textContent = p.relaxed ? p.message + " (allowed here: a rule relaxed for compositions)" : p.message;
            li.setAttribute("data-kind", p.kind);
            list.appendChild(li);
            squares = squares.concat(p.squares);
            if (BLOCKING[p.kind]) blocked = true;
          });
          var head = document.createElement("p");
          head.textContent = result.valid ? "Allowed, though it could not occur in a game:"
                                          : "This position could not occur in a game:";
          problemsBox.appendChild(head);
          problemsBox.appendChild(list);
        }
        markProblems(squares);
        searchLink.setAttribute("aria-disabled", blocked ? "true" : "false");
        problemsBox.setAttribute("data-checked", position);
      }).catch(function (error) { problemsBox.textContent = "The position could not be checked: " + error.message; });
    }, 150);
  }

  function changed() {
    draw();
    var position = positionString();
    output.value = position;
    searchLink.href = data.search_url + "?" + query(position);
    check(position);
  }

  /* --- tools ------------------------------------------------------------------------------- */

  function setTool(next) {
    tool = next;
    document.querySelectorAll(".palette-piece").forEach(function (b) {
      var on = Array.isArray(tool) && b.getAttribute("data-piece") === tool[0] && +b.getAttribute("data-colour") === tool[1];
      b.setAttribute("aria-pressed", on ? "true" : "false");
    });
    eraser.setAttribute("aria-pressed", tool === "erase" ? "true" : "false");
    toolLabel.textContent = tool === "erase" ? "Eraser: click a piece to remove it." :
      tool ? (tool[1] ? "Gote's " : "Sente's ") + tool[0] + " " + byId[tool[0]].name + ": click squares to place it." :
      "No piece chosen.";
  }

  function onSquare(square, remove) {
    var here = board[square];
    if (remove || tool === "erase" || (here && Array.isArray(tool) && here[0] === tool[0] && here[1] === tool[1])) {
      if (!here) return;
      delete board[square];
    } else if (Array.isArray(tool)) {
      board[square] = [tool[0], tool[1]];
    } else {
      toolLabel.textContent = "Choose a piece first (or the eraser).";
      return;
    }
    changed();
  }

  function squareAt(event) {
    var el = event.target.closest("[data-sq]");
    return el ? el.getAttribute("data-sq") : null;
  }

  svg.addEventListener("click", function (event) {
    var square = squareAt(event);
    if (square) onSquare(square, false);
  });
  svg.addEventListener("contextmenu", function (event) {
    var square = squareAt(event);
    if (!square) return;
    event.preventDefault();
    onSquare(square, true);
  });
  /* The palette's search box: the types whose ID or name holds the text typed (a group with none
   * is hidden). */
  var search = document.getElementById("palette-search");
  if (search) {
    search.addEventListener("input", function () {
      var text = search.value.trim().toLowerCase();
      var shown = 0;
      document.querySelectorAll(".palette-group").forEach(function (group) {
        var inGroup = 0;
        group.querySelectorAll(".palette-type").forEach(function (type) {
          var match = !text || type.getAttribute("data-piece").toLowerCase().indexOf(text) >= 0 ||
                      type.getAttribute("data-name").indexOf(text) >= 0;
          type.hidden = !match;
          if (match) inGroup += 1;
        });
        group.hidden = inGroup === 0;
        shown += inGroup;
      });
      document.getElementById("palette-none").hidden = shown > 0;
    });
  }

  document.getElementById("editor-palette").addEventListener("click", function (event) {
    var b = event.target.closest(".palette-piece");
    if (b) setTool([b.getAttribute("data-piece"), +b.getAttribute("data-colour")]);
  });
  eraser.addEventListener("click", function () { setTool(tool === "erase" ? null : "erase"); });
  document.getElementById("editor-start").addEventListener("click", function () { load(data.start); });
  document.getElementById("editor-empty").addEventListener("click", function () {
    load({pieces: {}, hands: [{}, {}], turn: "b"});
  });
  document.querySelectorAll("input[name=editor-turn]").forEach(function (radio) {
    radio.addEventListener("change", function () { if (radio.checked) { turn = radio.value; changed(); } });
  });
  squareField.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    event.preventDefault();
    var square = squareField.value.trim().toLowerCase();
    var m = /^([a-p])(\d{1,2})$/.exec(square);
    if (!m || m[1].charCodeAt(0) - 97 >= files || +m[2] < 1 || +m[2] > ranks) {
      toolLabel.textContent = square + " is not a square of this board.";
      return;
    }
    onSquare(square, false);
    squareField.select();
  });
  [0, 1].forEach(function (colour) {
    var add = document.getElementById("editor-hand-add-" + colour);
    if (add) {
      add.addEventListener("click", function () {
        if (!Array.isArray(tool) || !byId[tool[0]].droppable) {
          toolLabel.textContent = "Choose a piece that can be held in hand (not promoted, not royal) first.";
          return;
        }
        hands[colour][tool[0]] = (hands[colour][tool[0]] || 0) + 1;
        changed();
      });
    }
    var box = document.getElementById("editor-hand-" + (colour ? "gote" : "sente"));
    if (box) {
      box.addEventListener("click", function (event) {
        var b = event.target.closest(".hand-piece");
        if (!b) return;
        var id = b.getAttribute("data-piece");
        hands[colour][id] -= 1;
        if (!hands[colour][id]) delete hands[colour][id];
        changed();
      });
    }
  });
  document.getElementById("editor-copy").addEventListener("click", function () {
    var text = output.value;
    var say = function (t) { toolLabel.textContent = t; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { say("Position string copied."); },
        function () { say("Select the position string and copy it (Ctrl+C)."); });
    } else {
      say("Select the position string and copy it (Ctrl+C).");
    }
  });
  load(data.position);
})();

/* The analysis board: play moves on any board that viewer.js drives (game viewer, position
 * search, variant pages).
 *
 * The legal moves of the position shown come from GET /api/moves (the rules core; cached per
 * position string).  Clicking a piece (or a piece in hand) marks where it can go: dots for moves
 * to empty squares, rings for captures.  A move of several steps (Lion Dog, Soaring Eagle) is
 * played one stop at a time: the first click marks the squares reachable from the first stop, so
 * a square reached only as a second step shows after the first is chosen; clicking the chosen
 * stop again ends the move there.  Pass and igui (capture without moving) are marked on the
 * piece's own square and offered as buttons.  A promotion is asked only when both choices are
 * legal.  A played move becomes a node of viewer.js's move tree (a: 1), so the viewer's controls
 * and keys step through it; its line is listed beside the game's moves.
 * Keyboard: the "Legal moves" list (arrow keys mark a move on the board, Enter plays it).
 */
(function () {
  "use strict";
  var viewer = window.daikifuViewer;
  var panel = document.getElementById("analysis");
  if (!viewer || !panel) return;
  var SVG_NS = "http://www.w3.org/2000/svg";
  var data = viewer.data, nodes = viewer.nodes, children = viewer.children, svg = viewer.svg;
  var cell = +svg.getAttribute("data-cell");
  var movesUrl = panel.getAttribute("data-moves-url");
  var recordUrl = panel.getAttribute("data-record-url");
  var pieceUrl = panel.getAttribute("data-piece-url");
  var statusBox = document.getElementById("analysis-status");
  var choiceBox = document.getElementById("analysis-choice");
  var moveSelect = document.getElementById("analysis-moves");
  var textBox = document.getElementById("analysis-text");
  var download = document.getElementById("analysis-download");
  var pieceInfo = document.getElementById("piece-info");
  var moveList = document.getElementById("move-list") || document.getElementById("analysis-lines");
  var ownList = moveList && moveList.id === "analysis-lines";
  var follow = document.getElementById("explorer-section");  // the position search page

  var marks = document.createElementNS(SVG_NS, "g");
  marks.setAttribute("class", "analysis-marks");
  svg.appendChild(marks);

  var cache = {};  // position string -> /api/moves answer (a promise)
  var answer = null;  // the answer for the position shown
  var selection = null;  // {from: square or null, drop: piece ID or null, path: [stops chosen]}
  var lineOf = {};  // analysis node -> the element its line is written in
  var loadTimer = null;

  /* --- the moves of the position shown ---------------------------------------------------------- */

  function query(params) {
    var q = new URLSearchParams({variant: data.variant});
    if (data.ruleset) q.set("ruleset", data.ruleset);
    if (data.style) q.set("style", data.style);  // the moves written as the page writes them
    Object.keys(params).forEach(function (k) { q.set(k, params[k]); });
    return q.toString();
  }

  function load(position) {
    if (!cache[position]) {
      cache[position] = fetch(movesUrl + "?" + query({position: position}), {headers: {Accept: "application/json"}})
        .then(function (r) {
          return r.json().then(function (body) {
            if (!r.ok) throw new Error(body.error ? body.error.message : "HTTP " + r.status);
            return body;
          });
        });
      cache[position].catch(function () { delete cache[position]; });
    }
    return cache[position];
  }

  function stops(move) { return move.from === null ? [move.to] : move.steps.concat([move.to]); }

  function turnName(answer) { return answer.turn === "sente" ? "Sente" : "Gote"; }

  function setStatus(text) { statusBox.textContent = text; }

  function refresh() {
    var node = nodes[viewer.current()];
    clearSelection();
    answer = null;
    moveSelect.textContent = "";
    setStatus("Loading the legal moves\u2026");
    updateLine();
    // one request once the stepping stops (holding an arrow key asks for no position on the way)
    clearTimeout(loadTimer);
    loadTimer = setTimeout(function () {
      if (nodes[viewer.current()] !== node) return;
      load(node.pos).then(function (result) {
        if (nodes[viewer.current()] !== node) return;  // stepped on meanwhile
        answer = result;
        fillMoveList();
        var text = turnName(result) + " to move" + (result.check ? ", in check" : "") + ": " +
          result.moves.length + " legal move" + (result.moves.length === 1 ? "" : "s") + ".";
        if (result.outcome) text = "Game over: " + result.outcome.termination + " (" + result.outcome.result + ").";
        setStatus(text);
      }).catch(function (error) { setStatus("The moves could not be loaded: " + error.message); });
    }, cache[node.pos] ? 0 : 120);
  }

  function fillMoveList() {
    moveSelect.textContent = "";
    answer.moves.forEach(function (move, i) {
      var option = document.createElement("option");
      option.value = i;
      option.textContent = move.text || move.lsn;
      moveSelect.appendChild(option);
    });
  }

  /* --- marks on the board ----------------------------------------------------------------------- */

  function mark(square, cls) {
    var xy = viewer.corner(square);
    var shape;
    if (cls === "an-move") {
      shape = document.createElementNS(SVG_NS, "circle");
      shape.setAttribute("cx", xy[0] + cell / 2);
      shape.setAttribute("cy", xy[1] + cell / 2);
      shape.setAttribute("r", cell * 0.17);
    } else if (cls === "an-capture" || cls === "an-self") {
      shape = document.createElementNS(SVG_NS, "circle");
      shape.setAttribute("cx", xy[0] + cell / 2);
      shape.setAttribute("cy", xy[1] + cell / 2);
      shape.setAttribute("r", cell * 0.42);
    } else {
      shape = document.createElementNS(SVG_NS, "rect");
      shape.setAttribute("x", xy[0] + 1.5);
      shape.setAttribute("y", xy[1] + 1.5);
      shape.setAttribute("width", cell - 3);
      shape.setAttribute("height", cell - 3);
    }
    shape.setAttribute("class", "an-mark " + cls);
    shape.setAttribute("data-sq", square);
    marks.appendChild(shape);
  }

  function clearMarks() { while (marks.firstChild) marks.firstChild.remove(); }

  function clearSelection() {
    selection = null;
    clearMarks();
    choiceBox.hidden = true;
    choiceBox.textContent = "";
    document.querySelectorAll(".hand-piece.selected").forEach(function (e) { e.classList.remove("selected"); });
  }

  /* The moves of the selection that go through the stops chosen so far. */
  function candidates() {
    if (!selection || !answer) return [];
    return answer.moves.filter(function (m) {
      if (selection.drop !== null ? m.drop !== selection.drop : m.from !== selection.from || m.drop) return false;
      var s = stops(m);
      for (var i = 0; i < selection.path.length; i++) if (s[i] !== selection.path[i]) return false;
      return true;
    });
  }

  /* {square: [moves]} of the next stop of every candidate that goes on. */
  function nextStops(moves) {
    var out = {};
    var n = selection.path.length;
    moves.forEach(function (m) {
      var s = stops(m);
      if (s.length > n) (out[s[n]] = out[s[n]] || []).push(m);
    });
    return out;
  }

  function endingHere(moves) {
    return moves.filter(function (m) { return stops(m).length === selection.path.length; });
  }

  function drawSelection() {
    clearMarks();
    choiceBox.hidden = true;
    choiceBox.textContent = "";
    if (!selection) return;
    var moves = candidates();
    if (selection.from) mark(selection.from, "an-from");
    selection.path.forEach(function (sq) { mark(sq, "an-step"); });
    var next = nextStops(moves);
    var quiet = [], taking = [];
    Object.keys(next).forEach(function (sq) {
      if (sq === selection.from) {
        mark(sq, "an-self");  // pass, or igui: back to its own square
      } else {
        var captures = next[sq].some(function (m) { return m.captures.indexOf(sq) >= 0; });
        mark(sq, captures ? "an-capture" : "an-move");
        (captures ? taking : quiet).push(sq);
      }
    });
    // the marks in words, for screen readers and for anyone who cannot tell the colours apart
    var who = selection.drop ? selection.drop + " in hand" : moves[0].piece + " on " + selection.from;
    setStatus(who + (selection.path.length ? " via " + selection.path.join(", ") : "") + ": " +
      (quiet.length ? "moves to " + quiet.join(" ") : "") + (quiet.length && taking.length ? "; " : "") +
      (taking.length ? "captures on " + taking.join(" ") : "") + (quiet.length || taking.length ? "." : ""));
    if (selection.from && next[selection.from]) {
      var back = next[selection.from];
      var igui = back.some(function (m) { return m.igui; });
      offer([[igui ? "Capture without moving (igui)" : "Pass", function () { choose(selection.from); }]]);
    }
    if (selection.path.length && endingHere(moves).length) {
      var last = selection.path[selection.path.length - 1];
      offer([["Stop on " + last, function () { finish(endingHere(moves)); }]]);
    }
  }

  function offer(buttons, prompt) {
    if (prompt) {
      var p = document.createElement("span");
      p.textContent = prompt + " ";
      choiceBox.appendChild(p);
    }
    buttons.forEach(function (b) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = b[0];
      button.addEventListener("click", b[1]);
      choiceBox.appendChild(button);
    });
    choiceBox.hidden = false;
  }

  /* --- choosing and playing ---------------------------------------------------------------------- */

  function select(from, drop) {
    selection = {from: from, drop: drop, path: []};
    if (!candidates().length) {
      selection = null;
      setStatus((drop ? drop + " in hand" : "The piece on " + from) + " has no legal move here.");
    }
    drawSelection();
  }

  function ownPiece(square) {
    var use = svg.querySelector('g.pieces use[data-sq="' + square + '"]');
    if (!use || !answer) return false;
    return use.classList.contains(answer.turn);
  }

  function onSquare(square) {
    if (!answer) return;
    if (selection) {
      var moves = candidates();
      var next = nextStops(moves);
      if (next[square]) return choose(square);
      var n = selection.path.length;
      if (n && square === selection.path[n - 1] && endingHere(moves).length) return finish(endingHere(moves));
    }
    if (ownPiece(square) && !(selection && selection.from === square && !selection.path.length)) {
      return select(square, null);
    }
    clearSelection();
  }

  function choose(square) {
    selection.path.push(square);
    var moves = candidates();
    var longer = moves.some(function (m) { return stops(m).length > selection.path.length; });
    if (!longer) return finish(moves);
    drawSelection();
  }

  /* ``moves`` have the same squares and differ at most in promotion. */
  function finish(moves) {
    if (moves.length === 1) return play(moves[0]);
    var yes = moves.filter(function (m) { return m.promotion === true; })[0];
    var no = moves.filter(function (m) { return m.promotion === false; })[0];
    clearMarks();
    mark(moves[0].to, "an-step");
    choiceBox.textContent = "";
    offer([["Promote (" + yes.lsn + ")", function () { play(yes); }],
           ["Do not promote (" + no.lsn + ")", function () { play(no); }]], "Promote?");
    choiceBox.querySelector("button").focus();
  }

  function moveLabel(parentIndex, first) {
    var fields = nodes[parentIndex].pos.split(" ");
    var number = Math.floor((+fields[3] + 1) / 2);
    if (fields[1] === "b") return number + ".";
    return first ? number + "\u2026" : "";
  }

  function linkFor(index, node, parentIndex, first) {
    var a = document.createElement("a");
    a.className = "move analysis-move";
    a.href = "#analysis";
    a.setAttribute("data-node", index);
    a.textContent = node.m;
    var label = moveLabel(parentIndex, first);
    var out = document.createDocumentFragment();
    if (label) {
      var span = document.createElement("span");
      span.className = "move-number";
      span.textContent = label;
      out.appendChild(span);
    }
    out.appendChild(a);
    out.appendChild(document.createTextNode(" "));
    return [out, a];
  }

  /* Write the new node's move beside the game's: after its parent in the parent's line, or
   * in a new indented line after the parent's move (and the lines already there). */
  function place(index, node) {
    if (!moveList) return null;
    var parent = node.p;
    var continues = nodes[parent].a && lineOf[parent] && children[parent].length === 0;
    var made = linkFor(index, node, parent, !continues);
    if (continues) {
      lineOf[parent].appendChild(made[0]);
      lineOf[index] = lineOf[parent];
      return made[1];
    }
    var div = document.createElement("div");
    div.className = "variation analysis-line";
    div.appendChild(made[0]);
    var anchor = moveList.querySelector('.move[data-node="' + parent + '"]');
    if (anchor) {
      var after = anchor;
      // after the move's glyphs, comment and variations (earlier lines from here included)
      while (after.nextElementSibling && after.nextElementSibling.matches(".nag, .comment, .variation")) {
        after = after.nextElementSibling;
      }
      after.after(div);
    } else {
      moveList.appendChild(div);
    }
    lineOf[index] = div;
    return made[1];
  }

  function play(move) {
    var here = viewer.current();
    var known = children[here].filter(function (c) { return nodes[c].pos === move.position; })[0];
    if (known !== undefined) { viewer.goTo(known); return; }
    var node = {p: here, d: nodes[here].d + 1, m: move.text || move.lsn, c: move.changes, h: move.highlight,
                pos: move.position, a: 1, u: move.uci};
    if (move.hands) node.hd = move.hands;
    var index = nodes.length;
    var link = place(index, node);
    viewer.addNode(node, link);
  }

  /* --- the line: copying and downloading ----------------------------------------------------- */

  /* The analysis line through the node shown: from where it leaves the stored moves (or the
   * page's position) to its end. */
  function currentLine() {
    var end = viewer.current();
    while (children[end].length && nodes[children[end][0]].a) end = children[end][0];
    var moves = [];
    var n = end;
    while (nodes[n].a) { moves.unshift(nodes[n].u); n = nodes[n].p; }
    return {start: nodes[n].pos, moves: moves};
  }

  function recordHref(line, asFile) {
    var params = {position: line.start, moves: line.moves.join(" ")};
    if (asFile) params.download = "1";
    return recordUrl + "?" + query(params);
  }

  function updateLine() {
    if (download) download.href = recordHref(currentLine(), true);
  }

  function copy(text, what) {
    textBox.value = text;
    textBox.hidden = false;
    textBox.select();
    var done = function () { setStatus(what + " copied."); };
    var manual = function () { setStatus(what + " is selected below: copy it with Ctrl+C (\u2318C)."); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, manual);
    else manual();
  }

  document.getElementById("analysis-copy-position").addEventListener("click", function () {
    copy(nodes[viewer.current()].pos, "The position string");
  });
  document.getElementById("analysis-copy-lsn").addEventListener("click", function () {
    fetch(recordHref(currentLine(), false)).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    }).then(function (text) { copy(text, "The line as LSN"); })
      .catch(function (error) { setStatus("The line could not be written: " + error.message); });
  });

  /* --- the position search page follows the analysed position ------------------------------- */

  var followTimer = null;
  var shownPosition = (nodes[0] || nodes[data.current]).pos;  // a long game's window has no node 0

  function followPosition(position) {
    if (!follow || position === shownPosition) return;
    clearTimeout(followTimer);
    followTimer = setTimeout(function () {
      var url = location.pathname + "?" + query({position: position});
      fetch(url).then(function (r) { return r.ok ? r.text() : Promise.reject(new Error("HTTP " + r.status)); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          ["explorer-section", "matches-section", "position-summary"].forEach(function (id) {
            var fresh = doc.getElementById(id), old = document.getElementById(id);
            if (fresh && old) old.replaceWith(document.importNode(fresh, true));
          });
          follow = document.getElementById("explorer-section");
          shownPosition = position;
          history.replaceState(null, "", url);
          var field = document.querySelector(".position-form input[name=position]");
          if (field) field.value = position;
          var edit = document.getElementById("edit-position");
          if (edit) {
            var target = new URL(edit.href, location.href);
            target.searchParams.set("position", position);
            edit.href = target.toString();
          }
        }).catch(function (error) { setStatus("The search could not follow: " + error.message); });
    }, 250);
  }

  /* --- a piece's moves when it is hovered or long-pressed ------------------------------------ */

  var pieceCache = {};
  var hoverTimer = null;
  var pressed = false;  // a long press showed the moves: the click that ends it selects nothing

  function showPiece(id, target) {
    if (!pieceCache[id]) {
      pieceCache[id] = fetch(pieceUrl + encodeURIComponent(id)).then(function (r) {
        return r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status));
      });
    }
    pieceCache[id].then(function (piece) {
      pieceInfo.textContent = "";
      var title = document.createElement("strong");
      title.textContent = piece.id + " " + piece.name + (piece.kanji ? " " + piece.kanji : "");
      pieceInfo.appendChild(title);
      var list = document.createElement("ul");
      piece.moves.forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;
        list.appendChild(li);
      });
      pieceInfo.appendChild(list);
      if (piece.description) {
        var p = document.createElement("p");
        p.textContent = piece.description;
        pieceInfo.appendChild(p);
      }
      var figures = document.createElement("div");
      figures.className = "diagrams";
      piece.diagrams.forEach(function (d) {
        var doc = new DOMParser().parseFromString(d.svg, "image/svg+xml");
        var figure = document.createElement("figure");
        if (doc.documentElement.nodeName === "svg") figure.appendChild(document.importNode(doc.documentElement, true));
        var caption = document.createElement("figcaption");
        caption.textContent = d.caption;
        figure.appendChild(caption);
        figures.appendChild(figure);
      });
      pieceInfo.appendChild(figures);
      var box = target.getBoundingClientRect();
      pieceInfo.hidden = false;
      // beside the piece (right, else left), else under it: never over the piece pointed at
      var width = pieceInfo.offsetWidth, screen = document.documentElement.clientWidth;
      var left, top = box.top;
      if (box.right + 8 + width <= screen - 4) left = box.right + 8;
      else if (box.left - 8 - width >= 4) left = box.left - 8 - width;
      else { left = Math.max(4, Math.min(box.left, screen - width - 4)); top = box.bottom + 8; }
      pieceInfo.style.left = (window.scrollX + left) + "px";
      pieceInfo.style.top = (window.scrollY + top) + "px";
    }).catch(function () { /* no diagram: nothing to show */ });
  }

  function hidePiece() {
    clearTimeout(hoverTimer);
    pieceInfo.hidden = true;
  }

  svg.addEventListener("pointerover", function (event) {
    var use = event.target.closest("use.piece");
    if (!use || event.pointerType === "touch") return;
    clearTimeout(hoverTimer);
    hoverTimer = setTimeout(function () { showPiece(use.getAttribute("data-piece"), use); }, 400);
  });
  svg.addEventListener("pointerout", function (event) {
    if (event.target.closest("use.piece") && event.pointerType !== "touch") hidePiece();
  });
  svg.addEventListener("pointerdown", function (event) {
    var use = event.target.closest("use.piece");
    pressed = false;
    if (!use || event.pointerType === "mouse") return;
    clearTimeout(hoverTimer);
    hoverTimer = setTimeout(function () { pressed = true; showPiece(use.getAttribute("data-piece"), use); }, 500);
  });
  svg.addEventListener("pointerup", function () { if (!pressed) clearTimeout(hoverTimer); });
  svg.addEventListener("contextmenu", function (event) { if (pressed) event.preventDefault(); });

  /* --- events ------------------------------------------------------------------------------------ */

  svg.addEventListener("click", function (event) {
    hidePiece();
    if (pressed) { pressed = false; return; }
    var el = event.target.closest("[data-sq]");
    if (el) onSquare(el.getAttribute("data-sq"));
  });
  document.querySelectorAll(".hand").forEach(function (hand) {
    hand.addEventListener("pointerover", function (event) {
      var piece = event.target.closest(".hand-piece");
      if (!piece || event.pointerType === "touch") return;
      clearTimeout(hoverTimer);
      hoverTimer = setTimeout(function () { showPiece(piece.getAttribute("data-piece"), piece); }, 400);
    });
    hand.addEventListener("pointerout", function (event) { if (event.target.closest(".hand-piece")) hidePiece(); });
    hand.addEventListener("click", function (event) {
      var piece = event.target.closest(".hand-piece");
      hidePiece();
      if (!piece || !answer) return;
      var side = hand.id === "hand-sente" ? "sente" : "gote";
      if (side !== answer.turn) return;
      clearSelection();
      piece.classList.add("selected");
      select(null, piece.getAttribute("data-piece"));
    });
  });
  moveSelect.addEventListener("change", function () {
    var move = answer && answer.moves[+moveSelect.value];
    if (!move) return;
    selection = null;
    clearMarks();
    if (move.from) mark(move.from, "an-from");
    move.steps.forEach(function (sq) { mark(sq, "an-step"); });
    mark(move.to, move.captures.length ? "an-capture" : "an-move");
  });
  moveSelect.addEventListener("keydown", function (event) {
    var step = {ArrowLeft: "btn-back", ArrowRight: "btn-forward"}[event.key];
    if (step && document.getElementById(step)) {  // along the line, as on the board
      event.preventDefault();
      document.getElementById(step).click();
      return;
    }
    if (event.key !== "Enter") return;
    var move = answer && answer.moves[+moveSelect.value];
    if (!move) return;
    event.preventDefault();
    play(move);
    moveSelect.focus();
  });
  moveSelect.addEventListener("dblclick", function () {
    var move = answer && answer.moves[+moveSelect.value];
    if (move) play(move);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { clearSelection(); hidePiece(); }
  });
  if (ownList) {  // pages without the game's move list: the lines are written in the panel
    moveList.addEventListener("click", function (event) {
      var a = event.target.closest(".move[data-node]");
      if (!a) return;
      event.preventDefault();
      viewer.goTo(+a.getAttribute("data-node"));
    });
  }

  viewer.onShow(function (index, node) {
    hidePiece();
    refresh();
    followPosition(node.pos);
    if (ownList) {
      moveList.querySelectorAll(".move[data-node]").forEach(function (a) {
        var on = +a.getAttribute("data-node") === index;
        a.classList.toggle("current", on);
        if (on) a.setAttribute("aria-current", "step"); else a.removeAttribute("aria-current");
      });
    }
  });
  refresh();
})();

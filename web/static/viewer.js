/* The game viewer: steps through a game in the browser, without a request per ply.
 *
 * The page holds the move tree in <script id="game-data"> (see web/games.py): node 0 is the start
 * position, node N of the main line is ply N, and every node lists the squares its move changes
 * as [square, piece before, piece after] ("P" first player, "p" second player, null empty), and
 * the position string after it (pos).
 * Going from one node to another undoes the changes up to the common ancestor and applies those
 * down to the target, so moving through variations and jumping with the slider both work.
 */
(function () {
  "use strict";
  var SVG_NS = "http://www.w3.org/2000/svg";
  var source = document.getElementById("game-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var svg = document.getElementById(data.board || "board");  // pages other than the viewer name theirs
  if (!svg) return;
  var nodes = data.nodes;
  if (data.ids) {  // a window of a long game (web/games.py): nodes by id; other plies load their page
    nodes = [];
    data.ids.forEach(function (id, i) { nodes[id] = data.nodes[i]; });
  }
  var current = data.current;
  var flip = svg.getAttribute("data-flip") === "1";
  // a notation the reader chose (?style=) stays in the address as the viewer moves on
  var styleParam = new URLSearchParams(location.search).get("style");
  var styleSelect = document.getElementById("style-select");
  if (styleSelect) {
    var styleSubmit = document.getElementById("style-submit");
    if (styleSubmit) styleSubmit.hidden = true;  // the menu sends itself
    styleSelect.addEventListener("change", function () { styleSelect.form.submit(); });
  }
  var files = +svg.getAttribute("data-files"), ranks = +svg.getAttribute("data-ranks");
  var cell = +svg.getAttribute("data-cell"), margin = +svg.getAttribute("data-margin");
  var pieceLayer = svg.querySelector("g.pieces");
  var highlightLayer = svg.querySelector("g.highlights");
  var moveList = document.getElementById("move-list");
  var slider = document.getElementById("ply-slider");
  var label = document.getElementById("ply-label");
  var searchLink = document.getElementById("search-position");
  var positionBox = document.getElementById("position-string");

  // children in data order: the first child of a node continues its line
  var children = nodes.map(function () { return []; });
  nodes.forEach(function (node, i) { if (node.p !== null) children[node.p].push(i); });

  var symbols = {};
  svg.querySelectorAll("symbol[data-piece]").forEach(function (s) { symbols[s.getAttribute("data-piece")] = s.id; });
  var pieceAt = {};
  pieceLayer.querySelectorAll("use[data-sq]").forEach(function (u) { pieceAt[u.getAttribute("data-sq")] = u; });
  var moveLinks = {};
  if (moveList) {
    moveList.querySelectorAll(".move[data-node]").forEach(function (a) { moveLinks[a.getAttribute("data-node")] = a; });
  }

  /* --- drawing ----------------------------------------------------------------------------- */

  function corner(square) {
    var f = square.charCodeAt(0) - 97, r = parseInt(square.slice(1), 10) - 1;
    var x = flip ? files - 1 - f : f, y = flip ? r : ranks - 1 - r;
    return [margin + x * cell, margin + y * cell];
  }

  function placeRect(rect) {
    var xy = corner(rect.getAttribute("data-sq"));
    rect.setAttribute("x", xy[0]);
    rect.setAttribute("y", xy[1]);
  }

  function placePiece(use) {
    var xy = corner(use.getAttribute("data-sq"));
    var inset = Math.round(cell * 0.04), size = cell - 2 * inset;
    use.setAttribute("x", xy[0] + inset);
    use.setAttribute("y", xy[1] + inset);
    use.setAttribute("width", size);
    use.setAttribute("height", size);
    var gote = use.classList.contains("gote");
    var id = use.getAttribute("data-piece");
    if (labelMode === "upright") {  // the label stays upright; the pentagon points the piece's way
      use.setAttribute("href", "#" + uprightSymbol(id, gote, gote !== flip));
      use.removeAttribute("transform");
      return;
    }
    use.setAttribute("href", "#" + symbols[id]);
    if (gote !== flip) {
      use.setAttribute("transform", "rotate(180 " + (xy[0] + cell / 2) + " " + (xy[1] + cell / 2) + ")");
    } else {
      use.removeAttribute("transform");
    }
  }

  function setSquare(square, token) {
    var old = pieceAt[square];
    if (old) { old.remove(); delete pieceAt[square]; }
    if (!token) return;
    var id = token.toUpperCase();
    var use = document.createElementNS(SVG_NS, "use");
    use.setAttribute("href", "#" + symbols[id]);
    use.setAttribute("class", "piece " + (token === id ? "sente" : "gote"));
    use.setAttribute("data-sq", square);
    use.setAttribute("data-piece", id);
    placePiece(use);
    pieceLayer.appendChild(use);
    pieceAt[square] = use;
  }

  function drawHighlights() {
    while (highlightLayer.firstChild) highlightLayer.firstChild.remove();
    var h = nodes[current].h || {};
    var marks = [["p", "hl-path"], ["f", "hl-from"], ["t", "hl-to"], ["x", "hl-capture"]];
    var layers = marks.map(function (m) { return [h[m[0]] || [], m[1]]; });
    if (data.error && data.error.node === current) layers.push([data.error.squares, "hl-error"]);
    layers.forEach(function (layer) {
      layer[0].forEach(function (square) {
        var rect = document.createElementNS(SVG_NS, "rect");
        rect.setAttribute("class", layer[1]);
        rect.setAttribute("data-sq", square);
        rect.setAttribute("width", cell);
        rect.setAttribute("height", cell);
        placeRect(rect);
        highlightLayer.appendChild(rect);
      });
    });
  }

  function drawHands() {
    if (!data.drops) return;
    var counts = nodes[current].hd;
    ["sente", "gote"].forEach(function (side, colour) {
      var box = document.querySelector("#hand-" + side + " .hand-pieces");
      if (!box) return;
      while (box.firstChild) box.firstChild.remove();
      counts[colour].forEach(function (item) {
        var span = document.createElement("span");
        span.className = "hand-piece";
        span.setAttribute("data-piece", item[0]);
        span.title = item[0];
        span.textContent = idLabels ? item[0] : data.labels[item[0]] || item[0];
        if (item[1] > 1) {
          var sub = document.createElement("sub");
          sub.textContent = "\u00d7" + item[1];
          span.appendChild(sub);
        }
        box.appendChild(span);
      });
      if (!counts[colour].length) {
        var none = document.createElement("span");
        none.className = "muted";
        none.textContent = "none";
        box.appendChild(none);
      }
    });
  }

  /* --- moving through the tree ------------------------------------------------------------- */

  function apply(index, forward) {
    nodes[index].c.forEach(function (change) { setSquare(change[0], forward ? change[2] : change[1]); });
  }

  function goTo(target) {
    if (data.ids && target !== current && target >= 0 && !nodes[target]) {  // beyond the window
      var query = new URLSearchParams(target <= data.plies ? {ply: target} : {node: target});
      if (flip) query.set("flip", "1");
      if (styleParam) query.set("style", styleParam);
      location.search = query.toString();
      return;
    }
    if (target === current || target < 0 || target >= nodes.length) return;
    var path = [];
    var onPath = {};
    for (var n = target; n !== null; n = nodes[n].p) { path.push(n); onPath[n] = true; }
    while (!onPath[current]) { apply(current, false); current = nodes[current].p; }
    for (var i = path.indexOf(current) - 1; i >= 0; i--) apply(path[i], true);
    current = target;
    show();
  }

  function endOfLine(index) {
    while (children[index].length) index = children[index][0];
    return index;
  }

  /* Keep the current move visible in the move list (scrolling the list, not the page). */
  function scrollToCurrent() {
    var link = moveLinks[current];
    if (!link || !moveList) return;
    var top = link.offsetTop;  // the move list is the links' offset parent (position: relative)
    if (top < moveList.scrollTop || top > moveList.scrollTop + moveList.clientHeight - link.offsetHeight) {
      moveList.scrollTop = top - moveList.clientHeight / 2;
    }
  }

  function show() {
    var node = nodes[current];
    var mainline = current <= data.plies && !node.a;  // analysis nodes are numbered after the window (long games)
    drawHighlights();
    drawHands();
    Object.keys(moveLinks).forEach(function (key) {
      var a = moveLinks[key], on = +key === current;
      a.classList.toggle("current", on);
      if (on) a.setAttribute("aria-current", "step"); else a.removeAttribute("aria-current");
    });
    scrollToCurrent();
    if (slider) slider.value = node.d;
    if (label) {
      label.textContent = "Ply " + node.d + " of " + data.plies + (mainline ? "" : " (variation)") +
        (node.m ? ": " + node.m : "");
    }
    listeners.forEach(function (listener) { listener(current, node); });
    if (data.game && !node.a) {  // a stored game's node (analysis lines have no permalink)
      var query = new URLSearchParams(mainline ? {ply: node.d} : {node: current});
      if (flip) query.set("flip", "1");
      if (styleParam) query.set("style", styleParam);
      history.replaceState(null, "", "?" + query.toString());
      // the "download image" links draw the position shown (a variation's: the last main-line ply)
      ["image-png", "image-svg"].forEach(function (id) {
        var link = document.getElementById(id);
        if (!link || !mainline) return;
        var url = new URL(link.href, location.href);
        url.searchParams.set("ply", node.d);
        link.href = url.pathname + url.search;
      });
    }
    if (positionBox) positionBox.value = node.pos;
    if (searchLink) {
      var url = new URL(searchLink.href, location.href);
      var search = mainline && data.game ? {game: data.game, ply: node.d} : {variant: data.variant, position: node.pos};
      if (!mainline && data.ruleset) search.ruleset = data.ruleset;
      url.search = new URLSearchParams(search).toString();
      searchLink.href = url.toString();
    }
  }

  function toggleFlip() {
    flip = !flip;
    svg.setAttribute("data-flip", flip ? "1" : "0");
    svg.querySelectorAll("rect[data-sq]").forEach(placeRect);
    pieceLayer.querySelectorAll("use[data-sq]").forEach(placePiece);
    svg.querySelectorAll("text[data-file]").forEach(function (t) {
      var f = +t.getAttribute("data-file");
      t.setAttribute("x", margin + (flip ? files - 1 - f : f) * cell + cell / 2);
    });
    svg.querySelectorAll("text[data-rank]").forEach(function (t) {
      var r = +t.getAttribute("data-rank");
      t.setAttribute("y", margin + (flip ? r : ranks - 1 - r) * cell + cell / 2);
    });
    svg.querySelectorAll("line[data-after-rank]").forEach(function (line) {
      var r = +line.getAttribute("data-after-rank");
      var y = margin + (flip ? r + 1 : ranks - 1 - r) * cell;
      line.setAttribute("y1", y);
      line.setAttribute("y2", y);
    });
    var column = svg.closest(".board-column");
    if (column) column.classList.toggle("flipped", flip);
    var button = document.getElementById("btn-flip");
    if (button) button.setAttribute("aria-pressed", flip ? "true" : "false");
    show();
  }

  /* The pieces' labels: kanji (where the variant has them), IDs, or IDs drawn upright for both
   * sides (the side shown by the pentagon's direction and colour, web/svg.py's upright mode);
   * the button steps through them, and the browser remembers the choice. */
  var kanjiTexts = svg.querySelectorAll("symbol text[data-kanji]");
  // without kanji, IDs upright first: a Latin ID turned upside down reads as another (WT, PF)
  var labelModes = kanjiTexts.length ? ["kanji", "id", "upright"] : ["upright", "id"];
  var labelNames = {kanji: "Kanji", id: "IDs", upright: "Upright IDs"};
  var labelMode = labelModes[0];
  var idLabels = false;
  var PENTAGON_UP = "50,7 82,22 90,94 10,94 18,22", PENTAGON_DOWN = "50,93 82,78 90,6 10,6 18,78";

  function uprightSymbol(id, dark, down) {
    var key = symbols[id] + "-" + (dark ? "g" : "s") + (down ? "d" : "u");
    if (document.getElementById(key)) return key;
    var symbol = document.getElementById(symbols[id]).cloneNode(true);
    symbol.id = key;
    var promoted = symbol.classList.contains("promoted");
    var polygon = symbol.querySelector("polygon"), text = symbol.querySelector("text");
    polygon.setAttribute("points", down ? PENTAGON_DOWN : PENTAGON_UP);
    polygon.setAttribute("fill", dark ? "#3a3129" : "#fdf3dc");
    text.textContent = id;
    if (text.hasAttribute("data-id-size")) text.setAttribute("font-size", text.getAttribute("data-id-size"));
    text.setAttribute("y", down ? 40 : 60);
    text.setAttribute("fill", dark ? (promoted ? "#ff9a8a" : "#fdf3dc") : (promoted ? "#c0181b" : "#1d1d1f"));
    svg.querySelector("defs").appendChild(symbol);
    return key;
  }

  function setLabels(mode) {
    labelMode = mode;
    idLabels = mode !== "kanji";
    kanjiTexts.forEach(function (t) {
      t.textContent = t.getAttribute(idLabels ? "data-id" : "data-kanji");
      t.setAttribute("font-size", t.getAttribute(idLabels ? "data-id-size" : "data-kanji-size"));
    });
    svg.setAttribute("data-labels", mode === "id" ? "ids" : mode);
    Object.keys(pieceAt).forEach(function (sq) { placePiece(pieceAt[sq]); });
    var button = document.getElementById("btn-labels");
    if (button) {
      var next = labelModes[(labelModes.indexOf(mode) + 1) % labelModes.length];
      button.setAttribute("aria-pressed", mode !== labelModes[0] ? "true" : "false");
      button.setAttribute("data-mode", mode);
      button.textContent = labelNames[mode];
      button.title = "Labels: " + labelNames[mode] + "; next: " + labelNames[next] + " (L)";
    }
    try { localStorage.setItem("daikifu-labels", mode); } catch (e) { /* private mode */ }
    // the "download image" links draw the pieces as the board shows them
    ["image-png", "image-svg", "image-gif"].forEach(function (id) {
      var link = document.getElementById(id);
      if (!link) return;
      var url = new URL(link.href, location.href);
      url.searchParams.set("labels", mode === "id" ? "ids" : mode);
      link.href = url.pathname + url.search;
    });
    drawHands();
  }

  /* --- controls ---------------------------------------------------------------------------- */

  var actions = {
    "btn-start": function () { goTo(0); },
    "btn-back": function () {
      if (nodes[current].p !== null) goTo(nodes[current].p);
      else if (data.ids && current > 0 && current <= data.plies) goTo(current - 1);  // window's start
    },
    "btn-forward": function () {
      if (children[current].length) goTo(children[current][0]);
      else if (data.ids && current < data.plies) goTo(current + 1);  // window's end
    },
    "btn-end": function () { goTo(data.ids && current <= data.plies ? data.plies : endOfLine(current)); },
    "btn-flip": toggleFlip,
    "btn-labels": function () { setLabels(labelModes[(labelModes.indexOf(labelMode) + 1) % labelModes.length]); }
  };
  Object.keys(actions).forEach(function (id) {
    var button = document.getElementById(id);
    if (button) button.addEventListener("click", actions[id]);
  });
  var keys = {ArrowLeft: "btn-back", ArrowRight: "btn-forward", Home: "btn-start", End: "btn-end", f: "btn-flip", l: "btn-labels"};
  document.addEventListener("keydown", function (event) {
    var tag = event.target.tagName;
    if (event.altKey || event.ctrlKey || event.metaKey || tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    actions[action]();
  });
  if (moveList) {
    moveList.addEventListener("click", function (event) {
      var a = event.target.closest(".move[data-node]");
      if (!a || event.ctrlKey || event.metaKey || event.shiftKey) return;  // let a new tab open
      event.preventDefault();
      goTo(+a.getAttribute("data-node"));
    });
  }
  if (slider) slider.addEventListener("input", function () { goTo(+slider.value); });
  if (positionBox) positionBox.addEventListener("focus", function () { positionBox.select(); });
  scrollToCurrent();
  if (document.getElementById("btn-labels")) {
    document.getElementById("btn-labels").hidden = false;
    var stored = null;
    try { stored = localStorage.getItem("daikifu-labels"); } catch (e) { /* private mode */ }
    setLabels(labelModes.indexOf(stored) >= 0 ? stored : labelModes[0]);
  }
  if (flip) {
    var column = svg.closest(".board-column");
    if (column) column.classList.add("flipped");
  }

  /* --- the hook for the analysis board (analysis.js): it adds nodes to the tree ------------- */

  var listeners = [];
  window.daikifuViewer = {
    data: data, nodes: nodes, children: children, svg: svg,
    current: function () { return current; },
    flipped: function () { return flip; },
    goTo: goTo,
    corner: corner,
    /* Add a node (as in game-data, with a: 1) under node.p, its move-list link (optional), and go there. */
    addNode: function (node, link) {
      nodes.push(node);
      children.push([]);
      children[node.p].push(nodes.length - 1);
      if (link) moveLinks[nodes.length - 1] = link;
      goTo(nodes.length - 1);
      return nodes.length - 1;
    },
    onShow: function (listener) { listeners.push(listener); }
  };
})();

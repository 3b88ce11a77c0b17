/* Engine analysis in the viewer (web/engine.py): the score graph and best line of a game's stored
 * analysis under its move list, and the analysis board's engine toggle (daikifu serve --engine).
 *
 * Both follow the position shown by watching the ply slider and the position string that
 * viewer.js updates, so that neither script has to know the other's internals.
 */
(function () {
  "use strict";

  function score(cp) {
    if (cp === undefined || cp === null) return "";
    return (cp > 0 ? "+" : "") + (cp / 100).toFixed(2);
  }

  /* A stored entry's score as shown: a mate as #3 (Sente mates) or #-3, else Pawns. */
  function shown(p) {
    if (p.mate !== undefined && p.mate !== null) return "#" + p.mate;
    return score(p.score);
  }

  function watch(read, onChange, ms) {
    var last = null;
    function tick() {
      var now = read();
      if (now !== last) { last = now; onChange(now); }
    }
    tick();
    return setInterval(tick, ms || 200);
  }

  /* --- a game's stored analysis --------------------------------------------------------------- */

  var panel = document.getElementById("engine-analysis");
  var stopWatching = null;
  function load(engine) {
    var url = panel.getAttribute("data-url") + (engine ? "?engine=" + encodeURIComponent(engine) : "");
    fetch(url, {headers: {Accept: "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data && data.analysed) showGame(data); })
      .catch(function () { /* no analysis: the panel stays hidden */ });
  }
  if (panel) load(null);

  /* The engines that analysed the game (a local engine's and the analysis its record carried,
   * lishogi's): a choice when there are several. */
  function showSources(data) {
    var box = document.getElementById("engine-source");
    var names = Object.keys(data.engines || {});
    box.textContent = "";
    if (names.length < 2) { box.textContent = data.engine ? "By " + data.engine : ""; return; }
    var label = document.createElement("label");
    label.textContent = "By ";
    var select = document.createElement("select");
    names.forEach(function (name) {
      var o = document.createElement("option");
      o.value = name; o.textContent = name + " (" + data.engines[name] + " positions)";
      if (name === data.engine) o.selected = true;
      select.appendChild(o);
    });
    select.addEventListener("change", function () { load(select.value); });
    label.appendChild(select);
    box.appendChild(label);
  }

  function showGame(data) {
    if (stopWatching) { clearInterval(stopWatching); stopWatching = null; }
    document.getElementById("engine-graph").textContent = "";
    document.querySelectorAll("#move-list .move").forEach(function (a) {
      a.classList.remove("engine-mistake", "engine-blunder");
    });
    showSources(data);
    var NS = "http://www.w3.org/2000/svg";
    var plies = data.plies, n = plies.length, W = 600, H = 120, CAP = 1000;
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("class", "score-graph");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "score by ply, Sente up (mistakes and blunders marked)");
    function x(ply) { return n > 1 ? ply * W / (n - 1) : 0; }
    function y(cp) { return H / 2 - Math.max(-CAP, Math.min(CAP, cp)) / CAP * (H / 2 - 4); }
    var axis = document.createElementNS(NS, "line");
    axis.setAttribute("x1", 0); axis.setAttribute("x2", W); axis.setAttribute("y1", H / 2); axis.setAttribute("y2", H / 2);
    axis.setAttribute("class", "axis");
    svg.appendChild(axis);
    var points = plies.filter(function (p) { return p.score !== undefined; })
      .map(function (p) { return x(p.ply).toFixed(1) + "," + y(p.score).toFixed(1); });
    var line = document.createElementNS(NS, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", "score-line");
    svg.appendChild(line);
    plies.forEach(function (p) {
      if (!p.mark) return;
      var dot = document.createElementNS(NS, "circle");
      dot.setAttribute("cx", x(p.ply)); dot.setAttribute("cy", y(p.score)); dot.setAttribute("r", 4);
      dot.setAttribute("class", "mark " + p.mark);
      dot.setAttribute("data-ply", p.ply);
      var title = document.createElementNS(NS, "title");
      title.textContent = "Ply " + p.ply + " " + p.move + ": " + p.mark + " (" + score(-Math.abs(p.drop)) + ")";
      dot.appendChild(title);
      svg.appendChild(dot);
      var link = document.querySelector('#move-list .move[data-ply="' + p.ply + '"]');
      if (link && link.getAttribute("data-node") === String(p.ply)) link.classList.add("engine-" + p.mark);
    });
    var cursor = document.createElementNS(NS, "line");
    cursor.setAttribute("y1", 0); cursor.setAttribute("y2", H); cursor.setAttribute("class", "cursor");
    svg.appendChild(cursor);
    svg.addEventListener("click", function (e) {
      var box = svg.getBoundingClientRect();
      var ply = Math.round((e.clientX - box.left) / box.width * (n - 1));
      var link = document.querySelector('#move-list .move[data-ply="' + ply + '"]');
      if (link) link.click();
    });
    document.getElementById("engine-graph").appendChild(svg);
    panel.hidden = false;

    var best = document.getElementById("engine-best");
    var slider = document.getElementById("ply-slider");
    stopWatching = watch(function () { return slider ? slider.value : "0"; }, function (value) {
      var ply = +value, here = plies[ply], before = ply > 0 ? plies[ply - 1] : null;
      cursor.setAttribute("x1", x(ply)); cursor.setAttribute("x2", x(ply));
      var parts = [];
      if (here && here.score !== undefined) {
        parts.push("Score " + shown(here) + " (" + here.engine + (here.depth ? ", depth " + here.depth : "") + ")"
                   + (here.judgment ? " — " + here.judgment : ""));
      }
      if (before && before.line && here.move) {
        parts.push("Played " + here.move + "; the engine's line: " + before.line.join(" ")
                   + (here.mark ? " — " + here.mark : ""));
      } else if (here && here.line && here.line.length) {
        parts.push("Best line: " + here.line.join(" "));
      }
      if (here && here.cut) parts.push("(" + here.cut + " engine move" + (here.cut > 1 ? "s" : "") + " cut: " + here.cut_reason + ")");
      best.textContent = parts.join(" · ");
    });
  }

  /* --- the analysis board's engine toggle ------------------------------------------------------ */

  var box = document.getElementById("engine-box");
  var toggle = document.getElementById("engine-toggle");
  if (!box || !toggle) return;
  var out = document.getElementById("engine-line");
  var positionBox = document.getElementById("position-string");
  var timer = null, asked = 0;

  /* On a game's page: the ply of the game's moves the position shown comes from and the moves
   * played on the analysis board after it, so that the engine gets the game's history (the
   * server checks that they lead to the position). */
  function gameLine() {
    var v = window.daikifuViewer, section = document.getElementById("engine-analysis");
    if (!v || !section) return null;
    var n = v.current(), moves = [];
    while (v.nodes[n] && v.nodes[n].a) { moves.unshift(v.nodes[n].u); n = v.nodes[n].p; }
    if (!v.nodes[n] || moves.some(function (u) { return !u; })) return null;
    return {game: section.getAttribute("data-game"), ply: v.nodes[n].d || 0, moves: moves};
  }

  function ask(position) {
    if (!position) return;
    var mine = ++asked;
    out.hidden = false;
    out.textContent = "Engine: thinking…";
    var q = new URLSearchParams({variant: box.getAttribute("data-variant"), position: position});
    var line = gameLine();
    if (line) { q.set("game", line.game); q.set("ply", line.ply); q.set("moves", line.moves.join(" ")); }
    fetch(box.getAttribute("data-url") + "?" + q.toString(), {headers: {Accept: "application/json"}})
      .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); })
      .then(function (res) {
        if (mine !== asked) return;  // the board has moved on
        if (!res.ok) { out.textContent = "Engine: " + ((res.body.error && res.body.error.message) || "no answer"); return; }
        var a = res.body;
        if (!a.best && a.cut) {
          out.textContent = "Engine: " + a.engine + " misread this position (its first move, " + a.cut_reason
            + ", is not legal here)";
          out.setAttribute("data-source", a.source);
          return;
        }
        out.textContent = "Engine (" + (a.source === "archive" ? "archive, " : "") + a.engine + ", depth " + a.depth
          + "): " + shown(a) + (a.line.length ? " · " + a.line.join(" ") : "") + (a.cut ? " (" + a.cut + " cut)" : "");
        out.setAttribute("data-source", a.source);
      })
      .catch(function (error) { if (mine === asked) out.textContent = "Engine: " + error.message; });
  }

  toggle.addEventListener("change", function () {
    if (timer) { clearInterval(timer); timer = null; }
    asked++;
    if (!toggle.checked) { out.hidden = true; return; }
    timer = watch(function () { return positionBox ? (positionBox.value || positionBox.textContent) : ""; }, ask, 250);
  });
})();

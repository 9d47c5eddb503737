// mcpscope's host page: it relays. The view's messages (from the sandbox
// frame, on the sandbox origin only) go to mcpscope over the WebSocket as
// the page serialised them; mcpscope's go to the sandbox frame. The bridge
// itself, every answer and every decision, is mcpscope's.
(function () {
  "use strict";
  var data = document.body.dataset;
  var frame = document.getElementById("frame");
  var sandboxOrigin = data.sandboxOrigin;
  var ws = new WebSocket(data.ws);
  var queue = [];
  function send(o) {
    var s = JSON.stringify(o);
    if (ws.readyState === 1) ws.send(s); else queue.push(s);
  }
  ws.onopen = function () { queue.forEach(function (s) { ws.send(s); }); queue = []; };
  ws.onclose = function () { document.title = "(closed) " + document.title; };
  ws.onmessage = function (e) {
    var m = JSON.parse(e.data);
    if (m.post) frame.contentWindow.postMessage(m.post, sandboxOrigin);
    if (m.resize && typeof m.resize.height === "number" && m.resize.height > 0) {
      frame.style.height = Math.min(Math.ceil(m.resize.height), 6000) + "px";
    }
    if (m.mode) document.body.classList.toggle("fullscreen", m.mode.mode === "fullscreen");
  };
  window.addEventListener("message", function (e) {
    if (e.source !== frame.contentWindow || e.origin !== sandboxOrigin) return;
    var d = e.data;
    if (d && typeof d === "object" && d.mcpscope) {
      if (d.mcpscope.report) send({ report: d.mcpscope.report });
      else if (d.mcpscope.msg) send({ from: "view", via: d.mcpscope.via, msg: d.mcpscope.msg });
      return;
    }
    var from = d && d.method === "ui/notifications/sandbox-proxy-ready" ? "sandbox" : "view";
    send({ from: from, msg: d });
  });
})();

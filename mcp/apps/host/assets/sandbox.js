// mcpscope's sandbox page, on an origin other than the host's and under the
// view's Content-Security-Policy. It tells the host it is ready, writes the
// view's HTML into an inner frame (which inherits the policy), relays every
// other message both ways, and reports what the view's console, loads and
// policy refused. For a skybridge widget it installs window.openai, whose
// calls are bridge messages like the view's own.
(function () {
  "use strict";
  var hostOrigin = document.currentScript.dataset.host;
  var innerWin = null;
  var openai = null;
  var seq = 0;
  var pending = {};

  function toHost(m) { parent.postMessage(m, hostOrigin); }
  function report(r) { toHost({ mcpscope: { report: r } }); }
  function text(v) {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.name + ": " + v.message;
    try { return JSON.stringify(v); } catch (e) { return String(v); }
  }
  function onViolation(e) {
    report({ type: "csp", blockedURI: e.blockedURI, directive: e.effectiveDirective || e.violatedDirective,
      disposition: e.disposition, sourceFile: e.sourceFile, line: e.lineNumber });
  }
  document.addEventListener("securitypolicyviolation", onViolation, true);

  // hook watches the inner window; called after document.open, which
  // erases listeners, and before the view's HTML is written.
  function hook(w, d) {
    var err = w.console.error;
    w.console.error = function () {
      report({ type: "console", level: "error", text: Array.prototype.map.call(arguments, text).join(" ") });
      return err.apply(this, arguments);
    };
    w.addEventListener("error", function (e) {
      var t = e.target;
      if (t && t !== w && t.tagName) {
        report({ type: "load", url: t.src || t.href || t.data || "", tag: t.tagName });
      } else {
        report({ type: "error", text: e.message || text(e.error), sourceFile: e.filename, line: e.lineno });
      }
    }, true);
    w.addEventListener("unhandledrejection", function (e) {
      report({ type: "error", text: "unhandled rejection: " + text(e.reason) });
    });
    d.addEventListener("securitypolicyviolation", onViolation, true);
  }

  // The ChatGPT dialect: window.openai, on the same bridge.
  function viaOpenAI(msg) { toHost({ mcpscope: { via: "window.openai", msg: msg } }); }
  function openaiRequest(method, params) {
    var id = "openai-" + (++seq);
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      viaOpenAI({ jsonrpc: "2.0", id: id, method: method, params: params });
    });
  }
  function setGlobals(w, g) {
    Object.keys(g).forEach(function (k) { openai[k] = g[k]; });
    try {
      w.dispatchEvent(new w.CustomEvent("openai:set_globals", { detail: { globals: g } }));
    } catch (e) { /* an old widget without CustomEvent listeners */ }
  }
  function installOpenAI(w, globals) {
    openai = {
      callTool: function (name, args) {
        return openaiRequest("tools/call", { name: name, arguments: args || {} });
      },
      sendFollowUpMessage: function (o) {
        var prompt = o && o.prompt !== undefined ? o.prompt : o;
        return openaiRequest("ui/message", { role: "user", content: [{ type: "text", text: String(prompt) }] });
      },
      requestDisplayMode: function (o) {
        return openaiRequest("ui/request-display-mode", { mode: o && o.mode });
      },
      notifyIntrinsicHeight: function (h) {
        viaOpenAI({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: h } });
      },
      openExternal: function (o) {
        return openaiRequest("ui/open-link", { url: o && o.href });
      },
      setWidgetState: function (s) {
        openai.widgetState = s;
        viaOpenAI({ jsonrpc: "2.0", method: "openai/setWidgetState", params: { state: s } });
        return Promise.resolve();
      }
    };
    Object.keys(globals).forEach(function (k) { openai[k] = globals[k]; });
    w.openai = openai;
    // The shim initialises for the widget, as a view built with the SDK
    // would: the host sees the same handshake either way.
    openaiRequest("ui/initialize", { appInfo: { name: "window.openai", version: "mcpscope" }, appCapabilities: {},
      protocolVersion: "2026-01-26" }).then(function () {
      viaOpenAI({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    });
  }

  function load(p) {
    var inner = document.createElement("iframe");
    inner.setAttribute("sandbox", p.sandbox || "allow-scripts allow-same-origin allow-forms");
    inner.setAttribute("title", "view");
    document.body.appendChild(inner);
    innerWin = inner.contentWindow;
    var d = innerWin.document;
    d.open();
    hook(innerWin, d);
    if (p.openai) installOpenAI(innerWin, p.openai);
    d.write(p.html);
    d.close();
  }

  window.addEventListener("message", function (e) {
    if (e.source === parent && e.origin === hostOrigin) {
      var m = e.data;
      if (m && m.method === "ui/notifications/sandbox-resource-ready") { load(m.params || {}); return; }
      if (m && typeof m.id === "string" && pending[m.id] && !m.method) {
        var p = pending[m.id];
        delete pending[m.id];
        if (m.error) p.reject(new Error(m.error.message)); else p.resolve(m.result);
        return;
      }
      if (openai && m && m.method === "ui/resource-teardown") {
        viaOpenAI({ jsonrpc: "2.0", id: m.id, result: {} });
        return;
      }
      if (openai && innerWin && m && m.method === "ui/notifications/tool-result" && m.params) {
        setGlobals(innerWin, { toolOutput: m.params.structuredContent || null, toolResponseMetadata: m.params._meta || null });
      }
      if (openai && innerWin && m && m.method === "ui/notifications/tool-input" && m.params) {
        setGlobals(innerWin, { toolInput: m.params.arguments || {} });
      }
      if (innerWin) innerWin.postMessage(m, "*");
      return;
    }
    if (innerWin && e.source === innerWin) toHost(e.data);
  });
  toHost({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} });
})();

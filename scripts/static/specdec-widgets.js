// Loaded (by myst-nb's nb_ipywidgets_js, see _config.yml) after require.js and
// before the ipywidgets HTML manager on pages with widgets. It points the
// manager's AMD modules at the copy served from this book's _static/html-manager/,
// so the fonts and styles it loads resolve locally from pages at any depth.
(function () {
  var script = document.currentScript;
  var base = new URL("html-manager/", script ? script.src : document.baseURI).href.replace(/\/$/, "");
  window.__jupyter_widgets_assets_path__ = base + "/";
  if (window.require && typeof window.require.config === "function") {
    window.require.config({
      paths: {
        "@jupyter-widgets/html-manager/dist": base,
        "@jupyter-widgets/base": base + "/base",
        "@jupyter-widgets/controls": base + "/controls",
        "@jupyter-widgets/output": base + "/output"
      }
    });
  }
})();

// The HTML manager typesets widget labels with the MathJax 2 API
// (MathJax.Hub.Queue); the book uses MathJax 3. Provide that one call on top
// of MathJax 3 so labels with math are typeset instead of raising
// "Cannot read properties of undefined (reading 'Queue')".
(function () {
  function install() {
    var mj = window.MathJax;
    // only on the loaded MathJax 3 object, never on the configuration object
    // that precedes it (MathJax would read "Hub" as a configuration key)
    if (!mj || mj.Hub || !mj.version) { return; }
    mj.Hub = {
      Queue: function () {
        var elements = [];
        for (var i = 0; i < arguments.length; i++) {
          var item = arguments[i];
          if (Array.isArray(item) && item[0] === "Typeset" && item[2]) { elements.push(item[2]); }
          else if (typeof item === "function") { try { item(); } catch (e) { console.warn(e); } }
        }
        var m = window.MathJax;
        if (m && m.startup && m.startup.promise && m.typesetPromise) {
          m.startup.promise.then(function () { return m.typesetPromise(elements.length ? elements : undefined); });
        }
      }
    };
  }
  install();
  document.addEventListener("DOMContentLoaded", install);
  window.addEventListener("load", install);
})();

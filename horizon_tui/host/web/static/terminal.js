// Runs before xterm.js (the part before it in play-bundle.js, assets.py). The page's
// Content-Security-Policy (default-src 'self') refuses inline style text, and xterm.js's DOM
// renderer styles the terminal by setting the text of <style> elements it makes (cell sizes, the
// palette) and `style` attributes (24-bit colours). Both go through the CSSOM instead, which the
// policy allows: the <style> texts become constructed style sheets (document.adoptedStyleSheets),
// a `style` attribute the element's style.cssText.
(function () {
  "use strict";
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === "style" && this.style) {
      this.style.cssText = String(value);
      return;
    }
    setAttribute.call(this, name, value);
  };
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (tag, options) {
    if (String(tag).toLowerCase() !== "style" || typeof CSSStyleSheet !== "function") {
      return create.call(this, tag, options);
    }
    // an inert <template> holds its place: even an empty <style> in the page is refused
    const element = create.call(this, "template");
    const sheet = new CSSStyleSheet();
    let text = "";
    const documentOf = this;
    const setText = function (value) {
      text = String(value);
      sheet.replaceSync(text);
      if (!documentOf.adoptedStyleSheets.includes(sheet)) {
        documentOf.adoptedStyleSheets = [...documentOf.adoptedStyleSheets, sheet];
      }
    };
    for (const name of ["textContent", "innerText", "innerHTML"]) {
      Object.defineProperty(element, name, { get: () => text, set: setText, configurable: true });
    }
    const remove = element.remove.bind(element);
    element.remove = function () {
      documentOf.adoptedStyleSheets = documentOf.adoptedStyleSheets.filter((s) => s !== sheet);
      remove();
    };
    return element;
  };
})();

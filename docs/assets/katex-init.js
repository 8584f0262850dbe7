// Typeset the formulas with the vendored KaTeX (docs/assets/katex/), so the math renders
// with no network. pymdownx.arithmatex (generic mode) leaves every formula in the page as
// its LaTeX inside an element of class "arithmatex": \( ... \) inline, \[ ... \] display.
// Only those elements are rendered, so a "$" in prose or code is never taken for math, and
// the links of the navigation: a heading with a formula keeps it in the table of contents
// as plain text between \( and \), where arithmatex does not reach.
function renderMath(root) {
  for (const element of root.querySelectorAll(".arithmatex, .md-nav__link")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false, // a formula KaTeX cannot parse shows in red, the page still renders
    });
  }
}

if (typeof document$ !== "undefined") {
  // mkdocs-material: document$ emits on the first load and after every instant navigation,
  // which swaps the page content without reloading the scripts.
  document$.subscribe(({ body }) => renderMath(body));
} else {
  document.addEventListener("DOMContentLoaded", () => renderMath(document.body));
}

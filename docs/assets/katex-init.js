// Typeset the formulas with the vendored KaTeX (docs/assets/katex/), so the math renders
// with no network. pymdownx.arithmatex (generic mode) leaves every formula in the page as
// its LaTeX inside an element of class "arithmatex": \( ... \) inline, \[ ... \] display.
// Only those elements are rendered, so a "$" in prose or code is never taken for math.
// Two more places hold formulas as plain text: the navigation links (a heading's formula
// lands in the table of contents between \( and \), where arithmatex does not reach),
// and the Markdown cells of the tutorial notebooks, which mkdocs-jupyter leaves with
// Jupyter's own $ ... $ and $$ ... $$ delimiters.
const DELIMITERS = [
  { left: "\\(", right: "\\)", display: false },
  { left: "\\[", right: "\\]", display: true },
];
const NOTEBOOK_DELIMITERS = [
  { left: "$$", right: "$$", display: true },
  { left: "$", right: "$", display: false },
  ...DELIMITERS,
];

function renderMath(root) {
  const render = (selector, delimiters) => {
    for (const element of root.querySelectorAll(selector)) {
      // throwOnError false: a formula KaTeX cannot parse shows in red, the page still renders
      renderMathInElement(element, { delimiters, throwOnError: false });
    }
  };
  render(".arithmatex, .md-nav__link", DELIMITERS);
  render(".jp-RenderedMarkdown", NOTEBOOK_DELIMITERS);
}

if (typeof document$ !== "undefined") {
  // mkdocs-material: document$ emits on the first load and after every instant navigation,
  // which swaps the page content without reloading the scripts.
  document$.subscribe(({ body }) => renderMath(body));
} else {
  document.addEventListener("DOMContentLoaded", () => renderMath(document.body));
}

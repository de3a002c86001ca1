// MDX pages rendered to static HTML, as an MDX site (Mintlify) renders them: each page compiled
// by the real @mdx-js/mdx with the syntax Mintlify reads (frontmatter, GFM), run with React's JSX
// runtime and written out by react-dom/server's renderToStaticMarkup. No component is provided:
// a page's own elements (<table>, <code>, ...) are HTML elements, as argmatrix writes them.
//
// Reads {"source": ..., "components": [names]} lines on stdin (each component named stands in as a
// <div> holding its children: Mintlify's own, which the page does not define); answers each with {"ok": true, "html": ...} or
// {"ok": false, "error": ...}. Run by node from .cache/mdx-render (make .cache/mdx-render/.installed).
import {evaluate} from "@mdx-js/mdx";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import * as runtime from "react/jsx-runtime";
import {createElement} from "react";
import {renderToStaticMarkup} from "react-dom/server";
import readline from "node:readline";

const lines = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of lines) {
  const {source, components: names} = JSON.parse(line);
  const components = Object.fromEntries((names || []).map((name) => [
    name, (props) => createElement("div", {"data-stand-in": name}, props.children),
  ]));
  let answer;
  try {
    const {default: Content} = await evaluate(source, {
      ...runtime,
      remarkPlugins: [remarkFrontmatter, remarkGfm],
    });
    answer = {ok: true, html: renderToStaticMarkup(createElement(Content, {components}))};
  } catch (error) {
    answer = {ok: false, error: String(error && error.message)};
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}

// Copies the chat panel's charting library from node_modules into
// media/vendor/, where the webview loads it from the extension itself (no
// CDN: the panel's CSP allows only the extension's own files). Run by
// `npm run compile`; media/vendor/ is built, not committed.

const fs = require("fs");
const path = require("path");

const FILES = [
  ["chart.js/dist/chart.umd.js", "chart.umd.js"],
  ["chart.js/LICENSE.md", "chart.js-LICENSE.md"],
  ["chartjs-adapter-date-fns/dist/chartjs-adapter-date-fns.bundle.min.js", "chartjs-adapter-date-fns.bundle.min.js"],
  ["chartjs-adapter-date-fns/LICENSE.md", "chartjs-adapter-date-fns-LICENSE.md"],
  // The adapter's bundle holds date-fns.
  ["date-fns/LICENSE.md", "date-fns-LICENSE.md"],
];

const out = path.join(__dirname, "media", "vendor");
fs.mkdirSync(out, { recursive: true });
for (const [from, to] of FILES) {
  const src = path.join(__dirname, "node_modules", from);
  if (!fs.existsSync(src)) {
    console.error(`vendor.js: ${src} is missing; run \`npm ci\` in editors/vscode first`);
    process.exit(1);
  }
  // The source maps stay behind, so the scripts do not point at them.
  const text = fs.readFileSync(src, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
  fs.writeFileSync(path.join(out, to), text);
}

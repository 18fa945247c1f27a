// Checks a built .vsix: the compiled extension, media/ and the runtime
// dependency are in it; sources, tests, maps and dev dependencies are not.
// Usage: node out/test/support/checkVsix.js FILE.vsix

import * as fs from "node:fs";

/** The entry names of a zip file, from its central directory. */
export function zipEntries(zip: Buffer): string[] {
  const EOCD = 0x06054b50;
  const CDH = 0x02014b50;
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== EOCD) {
    end--; // skip the archive comment, if any
  }
  if (end < 0) {
    throw new Error("not a zip file: no end of central directory");
  }
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CDH) {
      throw new Error(`broken zip: no central directory header at ${at}`);
    }
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    names.push(zip.toString("utf8", at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

const REQUIRED = [
  "extension/package.json",
  "extension/readme.md",
  "extension/out/src/extension.js",
  "extension/out/src/client.js",
  "extension/out/src/chatView.js",
  "extension/out/src/chatHtml.js",
  "extension/media/aiq.svg",
  "extension/media/view.js",
  "extension/media/chat.js",
  "extension/media/charts.js",
  "extension/media/vendor/chart.umd.js",
  "extension/media/vendor/chartjs-adapter-date-fns.bundle.min.js",
  "extension/media/chat.css",
  "extension/media/result.js",
  "extension/media/result.css",
  "extension/node_modules/vscode-jsonrpc/package.json",
  "extension/node_modules/vscode-jsonrpc/node.js",
  "extension/node_modules/vscode-jsonrpc/lib/node/main.js",
];

const FORBIDDEN: [RegExp, string][] = [
  [/^extension\/(src|test|out\/test)\//, "sources and tests"],
  [/\.ts$/, "TypeScript files"],
  [/\.map$/, "source maps"],
  [/^extension\/node_modules\/(?!vscode-jsonrpc\/)/, "node_modules other than vscode-jsonrpc (dev dependencies)"],
  [/^extension\/(tsconfig\.json|\.gitignore|package-lock\.json)$/, "build files"],
  [/\.vsix$/, "other packages"],
  [/^extension\/\.code-server\//, "the end-to-end suite's code-server"],
];

export function vsixProblems(names: string[]): string[] {
  const have = new Set(names);
  const problems = REQUIRED.filter((n) => !have.has(n)).map((n) => `missing: ${n}`);
  for (const [re, what] of FORBIDDEN) {
    const bad = names.filter((n) => re.test(n));
    if (bad.length) {
      problems.push(`must not contain ${what}: ${bad.slice(0, 5).join(", ")}${bad.length > 5 ? ", …" : ""}`);
    }
  }
  return problems;
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: node out/test/support/checkVsix.js FILE.vsix");
    process.exit(2);
  }
  const names = zipEntries(fs.readFileSync(file));
  const problems = vsixProblems(names);
  if (problems.length) {
    console.error(`${file}: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`${file}: ${names.length} entries; the extension, media/ and vscode-jsonrpc are in, no sources, tests or dev dependencies.`);
}

// package.json and the code that implements it must agree: every command
// contributed is registered and every one registered is contributed, menus
// and keys name real commands, the view id is the provider's, and the
// settings read are the settings declared. (The vscode-side modules cannot
// be imported outside VS Code, so their source text is read.)

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

const root = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const source = (name: string) => fs.readFileSync(path.join(root, "src", name), "utf8");

describe("package.json", () => {
  const contributed: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command);

  it("contributes exactly the commands the extension registers, all in category AIQ", () => {
    const registered = [...source("commands.ts").matchAll(/\["(aiq\.[A-Za-z]+)",/g)].map((m) => m[1]);
    assert.deepEqual([...registered].sort(), [...contributed].sort());
    for (const c of manifest.contributes.commands) {
      assert.equal(c.category, "AIQ", c.command);
    }
  });

  it("menus, keybindings and the status bar use contributed commands", () => {
    const used = [
      ...manifest.contributes.menus["editor/context"].map((m: { command: string }) => m.command),
      ...manifest.contributes.menus["view/title"].map((m: { command: string }) => m.command),
      ...manifest.contributes.keybindings.map((k: { command: string }) => k.command),
      ...[...source("status.ts").matchAll(/command: "(aiq\.[A-Za-z]+)"/g)].map((m) => m[1]),
    ];
    assert.ok(used.length >= 4);
    for (const c of used) {
      assert.ok(contributed.includes(c), `${c} is contributed`);
    }
  });

  it("puts New Chat and History (the saved sessions) in the chat view's title bar, with icons", () => {
    const title = manifest.contributes.menus["view/title"] as { command: string; when: string; group: string }[];
    assert.deepEqual(title.map((m) => m.command), ["aiq.newChat", "aiq.load"]);
    for (const m of title) {
      assert.equal(m.when, "view == aiq.chat", m.command);
      assert.match(m.group, /^navigation/, `${m.command} shows as a button, not in the ... menu`);
      const command = manifest.contributes.commands.find((c: { command: string }) => c.command === m.command);
      assert.ok(command, `${m.command} is contributed`);
      assert.match(command.icon, /^\$\([a-z-]+\)$/, `${m.command} has a codicon`);
    }
  });

  it("declares the webview view the provider registers, in a container with an icon that exists", () => {
    const viewType = /static readonly viewType = "([^"]+)"/.exec(source("chatView.ts"))?.[1];
    assert.equal(viewType, "aiq.chat");
    const views = manifest.contributes.views.aiq;
    assert.deepEqual(views.map((v: { id: string; type: string }) => [v.id, v.type]), [["aiq.chat", "webview"]]);
    const container = manifest.contributes.viewsContainers.activitybar[0];
    assert.equal(container.id, "aiq");
    assert.ok(fs.existsSync(path.join(root, container.icon)), container.icon);
  });

  it("declares the settings the extension reads", () => {
    const read = [...source("extension.ts").matchAll(/c\.get\("([^"]+)"\)/g)].map((m) => `aiq.${m[1]}`);
    assert.deepEqual(read.sort(), Object.keys(manifest.contributes.configuration.properties).sort());
  });

  it("aiq.serverPath is a path on the machine the extension runs on, which a trusted workspace may override", () => {
    const props = manifest.contributes.configuration.properties;
    // VS Code's documented scope for an executable's path: read from the user settings of the machine
    // the extension host runs on (code-server's, a remote's Remote settings), and from a workspace.
    assert.equal(props["aiq.serverPath"].scope, "machine-overridable");
    // A workspace that is not trusted cannot choose the binary that runs.
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes("aiq.serverPath"));
  });

  it("activates on every language the extension runs SQL in, so that the CodeLens shows in a .sql file before the panel opens", async () => {
    const { SQL_LANGUAGES } = await import("../src/sqlStatements");
    const onLanguage = (manifest.activationEvents as string[]).filter((e) => e.startsWith("onLanguage:")).map((e) => e.slice("onLanguage:".length));
    assert.deepEqual([...onLanguage].sort(), [...SQL_LANGUAGES].sort());
  });

  it("runs on VS Code 1.85 with its entry point compiled from src/extension.ts", () => {
    assert.equal(manifest.engines.vscode, "^1.85.0");
    assert.equal(manifest.main, "./out/src/extension.js");
    assert.ok(fs.existsSync(path.join(root, manifest.main)), "compiled before the tests run");
    assert.ok(manifest.dependencies["vscode-jsonrpc"], "the runtime dependency that vsce packages");
  });
});

// A scripted OpenAI-compatible chat completions server for the tests, the
// TypeScript twin of conversation/llm/llmtest: each POST
// /v1/chat/completions is answered by the next step of the script as an SSE
// stream, and every request body is recorded.

import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type Step =
  /** Text, streamed in these pieces, paceMs apart (aiq-rpc coalesces pieces closer than ~40 ms). */
  | { text: string[]; paceMs?: number }
  /** Tool calls, each id and name first, then the arguments in two pieces. */
  | { toolCalls: ToolCall[] }
  /** Sends the role chunk, then nothing until the client goes away. */
  | { hold: true }
  /** Reasoning in reasoning_content, then text, then the finish reason (default "stop"). */
  | { reasoning: string[]; text: string[]; finish?: string };

export interface RecordedRequest {
  body: {
    model?: string;
    stream?: boolean;
    messages: { role: string; content?: unknown; tool_call_id?: string }[];
    tools?: { function: { name: string } }[];
  };
}

export class ScriptedModel {
  readonly requests: RecordedRequest[] = [];
  /** The ids GET /v1/models lists; none: that endpoint answers 404. */
  models?: string[];
  private steps: Step[] = [];
  private readonly server: http.Server;
  private heldAbort?: () => void;
  /** Resolves when a held answer's client went away. */
  heldClosed: Promise<void> = new Promise(() => {});

  private constructor() {
    this.server = http.createServer((req, res) => this.serve(req, res));
  }

  static async start(...steps: Step[]): Promise<ScriptedModel> {
    const m = new ScriptedModel();
    m.steps = steps;
    await new Promise<void>((resolve) => m.server.listen(0, "127.0.0.1", resolve));
    return m;
  }

  /** The API base, as config.yaml's llm.url. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  add(...steps: Step[]): void {
    this.steps.push(...steps);
  }

  /** Replaces the steps left over (by a failed test, say) with these. */
  reset(...steps: Step[]): void {
    this.steps = steps;
  }

  get remaining(): number {
    return this.steps.length;
  }

  async close(): Promise<void> {
    this.heldAbort?.();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method === "GET" && req.url?.endsWith("/models") && this.models) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: this.models.map((id) => ({ id, object: "model", owned_by: "scripted" })) }));
      return;
    }
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      return this.error(res, 404, `scripted model: no endpoint ${req.method} ${req.url}`);
    }
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", () => {
      let body: RecordedRequest["body"];
      try {
        body = JSON.parse(raw);
      } catch {
        return this.error(res, 400, "scripted model: the body is not JSON");
      }
      this.requests.push({ body });
      const step = this.steps.shift();
      if (!step) {
        return this.error(res, 500, `scripted model: no step left for request ${this.requests.length}`);
      }
      void this.answer(res, step);
    });
  }

  private async answer(res: http.ServerResponse, step: Step): Promise<void> {
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    const send = (delta: object, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify(chunk(delta, finish))}\n\n`);
    send({ role: "assistant", content: "" });
    if ("hold" in step) {
      this.heldClosed = new Promise((resolve) => {
        this.heldAbort = () => {
          res.destroy();
          resolve();
        };
        res.on("close", () => resolve());
      });
      return;
    }
    if ("reasoning" in step) {
      for (const piece of step.reasoning) {
        send({ content: null, reasoning_content: piece });
      }
      for (const piece of step.text) {
        send({ content: piece });
      }
      send({}, step.finish ?? "stop");
    } else if ("text" in step) {
      for (const [i, piece] of step.text.entries()) {
        if (i > 0 && step.paceMs) {
          await delay(step.paceMs);
        }
        send({ content: piece });
      }
      send({}, "stop");
    } else {
      step.toolCalls.forEach((call, index) => {
        send({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
        const args = JSON.stringify(call.arguments);
        const mid = Math.floor(args.length / 2);
        for (const piece of [args.slice(0, mid), args.slice(mid)]) {
          send({ tool_calls: [{ index, function: { arguments: piece } }] });
        }
      });
      send({}, "tool_calls");
    }
    res.end("data: [DONE]\n\n");
  }

  private error(res: http.ServerResponse, status: number, message: string): void {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: { message, type: "server_error", param: null, code: null } }));
  }
}

function chunk(delta: object, finish: string | null) {
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    created: 1767225600,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

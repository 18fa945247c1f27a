// What the status bar item says and does, from the controller's state.

export interface ControllerState {
  /** The data source of the conversation; "" when none is known yet or none is set. */
  source: string;
  /** Whether source is the conversation's (or the configured one): false until the server said. */
  sourceKnown: boolean;
  /** A turn is being answered. */
  running: boolean;
  server: "stopped" | "starting" | "running";
  /** The conversation's model; "" until the server said, or when none is configured. */
  model?: string;
  /** The source's label in sources.yaml ("production"); absent when it has none. */
  label?: string;
}

export interface StatusBarView {
  text: string;
  tooltip: string;
  command: string;
}

export function statusBarView(state: ControllerState): StatusBarView {
  if (state.running) {
    return { text: "$(sync~spin) AIQ: running…", tooltip: "AIQ is answering. Click to cancel.", command: "aiq.cancel" };
  }
  const source = state.source || (state.sourceKnown ? "no database" : "AIQ");
  const starting = state.server === "starting" ? " (starting…)" : "";
  const label = state.source && state.label ? ` [${state.label}]` : "";
  return {
    text: `$(database) ${source}${label}${starting}`,
    tooltip: label
      ? `AIQ data source, labelled ${state.label} in sources.yaml: every write asks. Click to select another.`
      : "AIQ data source. Click to select another.",
    command: "aiq.selectSource",
  };
}

/** The status bar item of the model: its name, and a click picks another. */
export function modelBarView(state: ControllerState): StatusBarView {
  const model = state.model || "model";
  return {
    text: `$(hubot) ${model}`,
    tooltip: "AIQ model. Click to pick another of the endpoint's models.",
    command: "aiq.selectModel",
  };
}

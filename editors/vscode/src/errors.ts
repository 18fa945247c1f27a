// The kinds of failure a command can end with, and how each reaches the user.

/** An error the user has already been shown; callers must not show it again. */
export class ReportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportedError";
  }
}

/** Something the user asked for that cannot be done now; the message says what to do. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

/** An error as the user should read it. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How a command's failure is shown: not at all (already shown), as a warning, or as an error. */
export function presentError(err: unknown): { level: "none" | "warning" | "error"; message: string } {
  if (err instanceof ReportedError) {
    return { level: "none", message: err.message };
  }
  if (err instanceof UserError) {
    return { level: "warning", message: err.message };
  }
  return { level: "error", message: messageOf(err) };
}

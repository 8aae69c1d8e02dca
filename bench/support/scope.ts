import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Cleanup registry of one benchmark run: whatever is started or created registers how to undo
 * it, and `close()` undoes everything in reverse order, even when the benchmark failed.
 */
export class Scope {
  private readonly undo: Array<{ label: string; run: () => unknown }> = [];
  private closing: Promise<void> | undefined;

  /** Registers a cleanup step, run in reverse order of registration by `close()`. */
  defer(label: string, run: () => unknown): void {
    if (this.closing !== undefined) throw new Error(`scope already closed (registering ${label})`);
    this.undo.push({ label, run });
  }

  /** A fresh temporary directory, removed on close. */
  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.defer(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** Runs every cleanup step once (concurrent callers share the run); failures are reported, the rest still run. */
  close(): Promise<void> {
    this.closing ??= this.undoAll();
    return this.closing;
  }

  private async undoAll(): Promise<void> {
    for (const step of this.undo.reverse()) {
      try {
        await step.run();
      } catch (err) {
        console.error(`cleanup "${step.label}" failed: ${(err as Error).message}`);
      }
    }
  }
}

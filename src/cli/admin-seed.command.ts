import { OperatorError } from '../core/errors/operator-error.ts';
import { requireTeam } from '../core/teams/team.service.ts';
import { seedVulnerabilities } from '../core/vulnerabilities/seed.service.ts';
import type { CoreRuntime } from '../runtime.ts';
import type { ParsedArgs } from './args.ts';

/** Base of the dashboard links written into vulnerabilities. */
export function detailsPageBase(runtime: CoreRuntime): string {
  return runtime.config.publicUrl ?? `http://localhost:${runtime.config.port}`;
}

/** `perimeter admin seed --team NAME --vulnerabilities N`: realistic demo findings through the ingestion service. */
export async function runSeed(runtime: CoreRuntime, args: ParsedArgs, out: (text: string) => void): Promise<unknown> {
  const teamName = args.flags['team'];
  const countText = args.flags['vulnerabilities'];
  if (teamName === undefined || countText === undefined)
    throw new OperatorError('seed needs --team NAME --vulnerabilities N');
  if (!/^\d+$/.test(countText) || Number(countText) < 1 || Number(countText) > 10_000_000)
    throw new OperatorError('--vulnerabilities must be an integer from 1 to 10000000');
  const team = await requireTeam(runtime.store, teamName);
  const started = Date.now();
  let lastReport = started;
  const result = await seedVulnerabilities(runtime, team, Number(countText), {
    detailsPageBase: detailsPageBase(runtime),
    onProgress: (done) => {
      if (!args.switches.has('json') && Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        out(`  ${done} vulnerabilities…`);
      }
    },
  });
  return { ...result, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

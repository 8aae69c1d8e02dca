import { createTcpDialer, type DialerKind, type DialOutcome, type DialTarget, type TcpDialer } from './tcp-dialer.ts';
import { RttEstimator, type TimeoutPolicy } from './rtt-estimator.ts';

/** Limits of one connect scan. */
export interface ConnectScanOptions {
  /** Connects in flight over all addresses. */
  concurrency: number;
  /** Connects in flight to one address (its window starts here and never grows past it). */
  perAddressConcurrency: number;
  /** The window of an address never shrinks below this. */
  minWindow: number;
  /** Extra tries of a port whose connect got no answer (a lost SYN). */
  maxRetries: number;
  timeouts: TimeoutPolicy;
  dialer: DialerKind;
}

/** One address to scan, already allowed by the egress guard. */
export interface ScanHost {
  address: string;
  family: 4 | 6;
}

/** What the connect scan saw. */
export interface ConnectScanResult {
  open: Array<{ address: string; port: number }>;
  /** (address, port) pairs that reached an end: open, closed or filtered. */
  probed: number;
  /** Pairs that never answered (every try timed out) or failed with an error. */
  filtered: number;
  /** Connects sent again after a time-out. */
  retries: number;
  warnings: string[];
}

/** Answers in a row that mean the address itself is unreachable, when it never answered. */
const UNREACHABLE_LIMIT = 16;
const PROGRESS_EVERY_MS = 100;
const RESOURCE_PAUSE_MS = 20;

/** One address's share of the scan: its place in the port list, retries, window and RTT. */
class HostState {
  cursor = 0;
  /** Ports to try again (with the try number), oldest first. */
  readonly retryPorts: number[] = [];
  readonly retryAttempts: number[] = [];
  retryHead = 0;
  inFlight = 0;
  window: number;
  answered = 0;
  unreachableStreak = 0;
  lastCutAt = -Infinity;
  isGivenUp = false;
  readonly rtt: RttEstimator;

  constructor(
    readonly address: string,
    readonly family: 4 | 6,
    window: number,
    timeouts: TimeoutPolicy,
  ) {
    this.window = window;
    this.rtt = new RttEstimator(timeouts);
  }

  hasWork(portCount: number): boolean {
    return !this.isGivenUp && (this.cursor < portCount || this.retryHead < this.retryPorts.length);
  }
}

interface Probe extends DialTarget {
  host: HostState;
  attempt: number;
  startedAt: number;
  deadline: number;
  /** Index in the in-flight list (for O(1) removal). */
  slot: number;
}

/**
 * A TCP connect scan of every port on every host: bounded concurrency (global and per address,
 * the address's window halving when a retried port answers, which means an earlier SYN was lost,
 * and growing back by one per window of answers), adaptive time-outs from the address's RTT, and
 * bounded retries of ports that did not answer. Rejects with the signal's reason when aborted,
 * after closing every socket.
 */
export function connectScan(
  hosts: ScanHost[],
  ports: readonly number[],
  options: ConnectScanOptions,
  signal: AbortSignal,
  onProgress?: (probed: number, open: number) => void,
): Promise<ConnectScanResult> {
  signal.throwIfAborted();
  return new ConnectScan(hosts, ports, options, signal, onProgress).run();
}

class ConnectScan {
  private readonly hosts: HostState[];
  private readonly dialer: TcpDialer;
  private readonly inFlight: Probe[] = [];
  private readonly pool: Probe[] = [];
  private readonly open: Array<{ address: string; port: number }> = [];
  private readonly warnings = new Set<string>();
  private cap: number;
  private next = 0;
  private probed = 0;
  private filtered = 0;
  private retries = 0;
  private pausedUntil = 0;
  private lastProgressAt = 0;
  private lastProgressProbed = -1;
  private timer: NodeJS.Timeout | undefined;
  private resolve!: (result: ConnectScanResult) => void;
  private reject!: (reason: unknown) => void;
  private isDone = false;

  constructor(
    hosts: ScanHost[],
    private readonly ports: readonly number[],
    private readonly options: ConnectScanOptions,
    private readonly signal: AbortSignal,
    private readonly onProgress: ((probed: number, open: number) => void) | undefined,
  ) {
    this.hosts = hosts.map((h) => new HostState(h.address, h.family, options.perAddressConcurrency, options.timeouts));
    this.cap = Math.max(1, options.concurrency);
    this.dialer = createTcpDialer(options.dialer, (target, outcome, code) =>
      this.settle(target as Probe, outcome, code),
    );
  }

  run(): Promise<ConnectScanResult> {
    return new Promise<ConnectScanResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.signal.addEventListener('abort', this.abort, { once: true });
      const tick = Math.max(5, Math.min(50, this.options.timeouts.minMs / 4));
      this.timer = setInterval(this.sweep, tick);
      this.fill();
    });
  }

  /** Starts connects until the global cap, or every address's window, is full. */
  private fill(): void {
    if (this.isDone) return;
    const now = performance.now();
    if (now < this.pausedUntil) return;
    const portCount = this.ports.length;
    while (this.inFlight.length < this.cap) {
      const host = this.nextHost(portCount);
      if (host === undefined) break;
      let port: number;
      let attempt: number;
      if (host.retryHead < host.retryPorts.length) {
        port = host.retryPorts[host.retryHead] as number;
        attempt = host.retryAttempts[host.retryHead] as number;
        host.retryHead += 1;
        if (host.retryHead === host.retryPorts.length) {
          host.retryPorts.length = 0;
          host.retryAttempts.length = 0;
          host.retryHead = 0;
        }
      } else {
        port = this.ports[host.cursor] as number;
        host.cursor += 1;
        attempt = 0;
      }
      this.launch(host, port, attempt, now);
    }
    if (this.inFlight.length === 0 && !this.hosts.some((h) => h.hasWork(portCount))) this.finish();
  }

  /** The next address (round robin) with work left and room in its window. */
  private nextHost(portCount: number): HostState | undefined {
    const hosts = this.hosts;
    for (let i = 0; i < hosts.length; i += 1) {
      const host = hosts[this.next] as HostState;
      this.next = this.next + 1 === hosts.length ? 0 : this.next + 1;
      if (host.inFlight < Math.floor(host.window) && host.hasWork(portCount)) return host;
    }
    return undefined;
  }

  private launch(host: HostState, port: number, attempt: number, now: number): void {
    const probe =
      this.pool.pop() ??
      ({
        address: '',
        family: 4,
        port: 0,
        socket: undefined,
        host,
        attempt: 0,
        startedAt: 0,
        deadline: 0,
        slot: 0,
      } as Probe);
    probe.address = host.address;
    probe.family = host.family;
    probe.port = port;
    probe.host = host;
    probe.attempt = attempt;
    probe.startedAt = now;
    probe.deadline = now + host.rtt.timeoutMs();
    probe.slot = this.inFlight.length;
    this.inFlight.push(probe);
    host.inFlight += 1;
    if (attempt > 0) this.retries += 1;
    this.dialer.dial(probe);
  }

  private remove(probe: Probe): void {
    const last = this.inFlight.pop() as Probe;
    if (last !== probe) {
      this.inFlight[probe.slot] = last;
      last.slot = probe.slot;
    }
    probe.host.inFlight -= 1;
  }

  /** A connect ended (the dialer's callback). */
  private settle(probe: Probe, outcome: DialOutcome, code: string): void {
    if (this.isDone) return;
    this.remove(probe);
    const host = probe.host;
    const now = performance.now();
    switch (outcome) {
      case 'open':
      case 'closed':
        this.answered(host, probe, now);
        if (outcome === 'open') this.open.push({ address: host.address, port: probe.port });
        this.probed += 1;
        break;
      case 'unreachable':
        this.probed += 1;
        this.filtered += 1;
        host.unreachableStreak += 1;
        if (host.answered === 0 && host.unreachableStreak >= UNREACHABLE_LIMIT && !host.isGivenUp) {
          host.isGivenUp = true;
          const left = this.ports.length - host.cursor + (host.retryPorts.length - host.retryHead);
          this.warnings.add(`${host.address} is unreachable (${code}); ${left} of its ports were not probed`);
        }
        break;
      case 'resources':
        // Not the target's doing: the same try goes back in the queue, and this process opens fewer sockets at once.
        host.retryPorts.push(probe.port);
        host.retryAttempts.push(probe.attempt);
        if (probe.attempt > 0) this.retries -= 1;
        this.cap = Math.max(16, Math.floor(this.cap * 0.75));
        this.pausedUntil = now + RESOURCE_PAUSE_MS;
        this.warnings.add(`local sockets ran out (${code}): concurrency lowered`);
        break;
      case 'failed':
        this.probed += 1;
        this.filtered += 1;
        this.warnings.add(`connects to ${host.address} failed with ${code}`);
        break;
    }
    this.release(probe);
    this.fill();
  }

  /** An answer (accepted or refused): an RTT sample for a first try, a lost SYN for a retry. */
  private answered(host: HostState, probe: Probe, now: number): void {
    host.answered += 1;
    host.unreachableStreak = 0;
    if (probe.attempt === 0) {
      host.rtt.sample(now - probe.startedAt);
      host.window = Math.min(this.options.perAddressConcurrency, host.window + 1 / host.window);
    } else if (now - host.lastCutAt > host.rtt.timeoutMs()) {
      // One cut per time-out period: the losses of one burst are one congestion event.
      host.window = Math.max(this.options.minWindow, host.window / 2);
      host.lastCutAt = now;
    }
  }

  private release(probe: Probe): void {
    probe.socket = undefined;
    if (this.pool.length < this.cap) this.pool.push(probe);
  }

  /** Times out the connects past their deadline; reports progress. */
  private readonly sweep = (): void => {
    const now = performance.now();
    for (let i = this.inFlight.length - 1; i >= 0; i -= 1) {
      const probe = this.inFlight[i] as Probe;
      if (probe.deadline > now) continue;
      this.dialer.cancel(probe);
      this.remove(probe);
      const host = probe.host;
      if (probe.attempt < this.options.maxRetries && !host.isGivenUp) {
        host.retryPorts.push(probe.port);
        host.retryAttempts.push(probe.attempt + 1);
      } else {
        this.probed += 1;
        this.filtered += 1;
      }
      this.release(probe);
      // The swap-remove moved a later probe into slot i; it was already checked.
    }
    this.fill();
    if (!this.isDone && now - this.lastProgressAt >= PROGRESS_EVERY_MS) this.progress(now);
  };

  private progress(now: number): void {
    this.lastProgressAt = now;
    if (this.onProgress === undefined || this.probed === this.lastProgressProbed) return;
    this.lastProgressProbed = this.probed;
    this.onProgress(this.probed, this.open.length);
  }

  private stop(): void {
    this.isDone = true;
    clearInterval(this.timer);
    this.signal.removeEventListener('abort', this.abort);
    for (const probe of this.inFlight) this.dialer.cancel(probe);
    this.inFlight.length = 0;
  }

  private finish(): void {
    this.stop();
    this.progress(performance.now());
    const open = this.open.sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
    this.resolve({
      open,
      probed: this.probed,
      filtered: this.filtered,
      retries: this.retries,
      warnings: [...this.warnings],
    });
  }

  private readonly abort = (): void => {
    if (this.isDone) return;
    this.stop();
    this.reject(this.signal.reason);
  };
}

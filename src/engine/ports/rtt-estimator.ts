/** Time-out settings of the connect scan, per address. */
export interface TimeoutPolicy {
  /** Time-out of a connect before the address has answered anything. */
  initialMs: number;
  /** Floor and cap of the adaptive time-out. */
  minMs: number;
  maxMs: number;
  /** A connect with no answer waits at least this many smoothed RTTs. */
  rttMultiple: number;
}

/** nmap -T4's numbers (initial 1000 ms was nmap's default before -T4 halved it; 1250 ms cap). */
export const defaultTimeoutPolicy: TimeoutPolicy = { initialMs: 1000, minMs: 100, maxMs: 1250, rttMultiple: 3 };

/**
 * The round-trip estimate of one address, as TCP (RFC 6298) and nmap keep it: every connect that
 * got an answer (accepted or refused) is a sample; a connect that got none is waited for
 * `max(srtt + 4·rttvar, rttMultiple·srtt)`, kept between the floor and the cap. Samples of
 * retransmitted probes are ignored by the caller (Karn's rule: the answer may be to either try).
 */
export class RttEstimator {
  private srtt = 0;
  private rttvar = 0;
  private samples = 0;
  private current: number;

  constructor(private readonly policy: TimeoutPolicy = defaultTimeoutPolicy) {
    this.current = policy.initialMs;
  }

  /** Records the RTT of one answered connect, in milliseconds. */
  sample(ms: number): void {
    const rtt = Math.max(0, ms);
    if (this.samples === 0) {
      this.srtt = rtt;
      this.rttvar = rtt / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - rtt);
      this.srtt = 0.875 * this.srtt + 0.125 * rtt;
    }
    this.samples += 1;
    const wanted = Math.max(this.srtt + 4 * this.rttvar, this.policy.rttMultiple * this.srtt);
    this.current = Math.min(this.policy.maxMs, Math.max(this.policy.minMs, wanted));
  }

  /** How long a connect started now may wait for an answer. */
  timeoutMs(): number {
    return this.current;
  }

  /** The smoothed RTT (0 before any sample). */
  smoothedMs(): number {
    return this.srtt;
  }

  /** Answers recorded so far. */
  sampleCount(): number {
    return this.samples;
  }
}

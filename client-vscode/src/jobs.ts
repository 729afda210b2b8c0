// Tracks the server's jobs from perfpilot/jobStatus notifications, for the status bar and Cancel.

import type { JobStatus } from './protocol';

export type { JobStatus };

/** The running jobs, newest last, and the last finished one. */
export class JobTracker {
  private readonly running = new Map<string, JobStatus>();
  private lastDone: JobStatus | undefined;

  /**
   * Records a notification. True when it moves its job on (a new stage, or the end): what the
   * lenses show about the job changed with it, so they are asked for again, from the same
   * notification that updates the status bar (never a stage behind it).
   */
  update(status: JobStatus): boolean {
    const before = this.running.get(status.jobId);
    if (status.done) {
      this.running.delete(status.jobId);
      this.lastDone = status;
      return true;
    }
    this.running.set(status.jobId, status);
    return before?.stage !== status.stage;
  }

  clear(): void {
    this.running.clear();
  }

  runningJobs(): JobStatus[] {
    return [...this.running.values()];
  }

  /** The job to cancel for a document: its newest running job, else the newest job anywhere. */
  jobFor(uri?: string): JobStatus | undefined {
    const jobs = this.runningJobs();
    const inDoc = uri ? jobs.filter((j) => j.uri === uri) : [];
    return (inDoc.length ? inDoc : jobs).pop();
  }

  finished(): JobStatus | undefined {
    return this.lastDone;
  }
}

/** The status bar's text and tooltip. */
export function statusBarText(backends: string, jobs: readonly JobStatus[], serverState: 'starting' | 'running' | 'stopped' | 'error'): { text: string; tooltip: string } {
  if (serverState === 'error' || serverState === 'stopped') {
    return {
      text: '$(error) PerfPilot',
      tooltip: serverState === 'error' ? 'PerfPilot server is not running: click for actions' : 'PerfPilot server stopped',
    };
  }
  if (serverState === 'starting') {
    return { text: '$(loading~spin) PerfPilot', tooltip: 'PerfPilot server is starting' };
  }
  if (jobs.length === 0) {
    return { text: `$(zap) PerfPilot: ${backends}`, tooltip: `PerfPilot: ${backends}` };
  }
  const job = jobs[jobs.length - 1];
  const more = jobs.length > 1 ? ` (+${jobs.length - 1})` : '';
  const tooltip = jobs.map((j) => `${j.function}: ${j.stage}${j.message ? ` — ${j.message}` : ''}`).join('\n');
  return { text: `$(sync~spin) PerfPilot: ${job.function} · ${job.stage}${more}`, tooltip: `${tooltip}\nClick to cancel or see the log` };
}

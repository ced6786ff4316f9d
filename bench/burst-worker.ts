// The client side of bench/login-burst.bench.ts, in a process of its own so the measured server
// never shares its event loop with the flood: opens `connections` connections at once, each sending
// one sign-in, and meanwhile a signed-in read every `readEveryMs`. Reports every answer's status,
// code and latency over IPC.
import { request } from 'node:http';

interface Job {
  port: number;
  connections: number;
  body: string;
  token: string;
  readEveryMs: number;
}

interface Answer {
  status: number;
  code: string;
  ms: number;
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let code: string;
        try {
          code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code?: string } }).error?.code ?? '';
        } catch {
          code = '';
        }
        resolve({ status: res.statusCode ?? 0, code, ms: performance.now() - started });
      });
    });
    // A reset or refused connection is an answer too (status 0), never a crash of the generator.
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, code: error.code ?? 'ERROR', ms: performance.now() - started }));
    req.end(body);
  });
}

process.once('message', (job: Job) => {
  void (async () => {
    const burst = Array.from({ length: job.connections }, () => send(job.port, 'POST', '/fw-api/login', { 'content-type': 'application/json' }, job.body));
    let done = false;
    const reads: Answer[] = [];
    const reading = (async () => {
      while (!done) {
        reads.push(await send(job.port, 'GET', '/fw-api/userinfo', { token: job.token }));
        await new Promise((resolve) => setTimeout(resolve, job.readEveryMs));
      }
    })();
    const started = performance.now();
    const answers = await Promise.all(burst);
    const wallMs = performance.now() - started;
    done = true;
    await reading;
    process.send!({ answers, reads, wallMs }, () => process.exit(0));
  })();
});

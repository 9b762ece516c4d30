// The live JavaScript heap of another process (started with `--inspect=127.0.0.1:<port>`): a full GC
// through its inspector (HeapProfiler.collectGarbage), then its heap's use. Its resident memory and its
// /metrics count the garbage too, which a process under little load keeps for a long time.

/** After a full GC, in bytes: what is live, and the heap V8 holds for it. */
export interface LiveHeap {
  usedBytes: number;
  totalBytes: number;
}

export async function liveHeapOf(inspectorPort: number): Promise<LiveHeap> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`the inspector at port ${inspectorPort} did not answer`));
  });
  const answers = new Map<number, (result: Record<string, unknown>) => void>();
  socket.onmessage = (message) => {
    const answer = JSON.parse(String(message.data)) as { id?: number; result?: Record<string, unknown> };
    if (answer.id !== undefined) answers.get(answer.id)?.(answer.result ?? {});
  };
  let calls = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      calls += 1;
      answers.set(calls, resolve);
      socket.send(JSON.stringify({ id: calls, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const { usedSize, totalSize } = (await call('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    return { usedBytes: usedSize, totalBytes: totalSize };
  } finally {
    socket.close();
  }
}

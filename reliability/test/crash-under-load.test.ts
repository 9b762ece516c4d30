// The short crash scenario on a stack of its own: it kills services, which the other scenarios' shared
// stack must not see.
import { describe, expect, it } from 'vitest';
import { stackPerFile } from './suite-per-file.ts';
import { crashUnderLoad } from '../scenarios/crash-under-load.ts';

const suite = stackPerFile();

describe('the whole stack while services crash under write load (short version)', () => {
  it('loses no acknowledged write, applies every event once and matches as a fresh engine when employees and matching crash', async () => {
    const report = await crashUnderLoad(suite(), 'short');
    expect(report.findings).toEqual([]);
    expect(report.rows.find(([measure]) => measure === 'lost writes')?.[1]).toBe(0);
    // the kills the scenario asked for are not unexpected exits
    expect(suite().exits).toEqual([]);
  });
});

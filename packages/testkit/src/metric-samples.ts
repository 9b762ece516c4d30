/** The samples of a Prometheus text exposition (what a service's /metrics answers). */
export interface MetricSamples {
  /** The sum of the samples of `name` whose labels include `labels`; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The label sets of the samples of `name`. */
  labels(name: string): Record<string, string>[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetricSamples(exposition: string): MetricSamples {
  const samples = exposition
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => {
      const match = SAMPLE.exec(line);
      if (match === null) return [];
      // label values escape as JSON strings do (\\, \", \n)
      const pairs = [...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name, JSON.parse(`"${value}"`) as string]);
      const labels = Object.fromEntries(pairs);
      return [{ name: match[1] as string, labels, value: Number(match[3]) }];
    });
  const of = (name: string, wanted: Record<string, string>) =>
    samples.filter((sample) => sample.name === name && Object.entries(wanted).every(([label, value]) => sample.labels[label] === value));
  return {
    value(name, labels = {}) {
      const found = of(name, labels);
      return found.length === 0 ? undefined : found.reduce((sum, sample) => sum + sample.value, 0);
    },
    labels: (name) => of(name, {}).map((sample) => sample.labels),
  };
}

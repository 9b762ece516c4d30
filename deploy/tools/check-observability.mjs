// Checks deploy/observability without Prometheus or Grafana (promtool is not available):
// - prometheus-rules.yaml: `groups` of rules, each alert with expr, for, labels.severity and
//   annotations.summary and runbook_url, the URL's anchor a heading of runbook.md, names unique, and
//   every alert the issue asks for present;
// - runbook.md: every entry belongs to an alert;
// - grafana-dashboard.json: a datasource variable that every panel uses, and a panel for each metric.
//   node check-observability.mjs <deploy/observability>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const dir = process.argv[2] ?? 'deploy/observability';
const problems = [];
const SEVERITIES = ['critical', 'warning', 'info'];
const REQUIRED_ALERTS = [
  'RmTargetDown', 'RmServiceAbsent', 'RmServiceNotReady', 'RmHighErrorRatio', 'RmHighLatency', 'RmOutboxStuck',
  'RmConsumerBacklogHigh', 'RmConsumerBacklogGrowing', 'RmDeadLetters', 'RmMongoDown', 'RmNatsDown',
  'RmMatchingConvergenceSlow', 'RmMemoryHigh',
];
const METRICS = [
  'rm_build_info', 'http_requests_total', 'http_request_duration_seconds', 'rm_outbox_backlog_events',
  'rm_outbox_oldest_event_age_seconds', 'rm_consumer_pending_messages', 'rm_consumer_ack_pending_messages',
  'rm_consumer_redelivered_messages', 'rm_consumer_handling_duration_seconds', 'rm_dead_letters_total', 'rm_mongodb_up',
  'rm_nats_up', 'rm_matching_convergence_lag_seconds', 'rm_matching_snapshots', 'rm_matching_combinations',
  'rm_webhook_attempts_total', 'rm_webhook_deliveries_pending',
  'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds',
];

// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
const runbook = readFileSync(join(dir, 'runbook.md'), 'utf8');
const slug = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
const anchors = new Set([...runbook.matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, heading]) => slug(heading)));

const rules = parse(readFileSync(join(dir, 'prometheus-rules.yaml'), 'utf8'), { uniqueKeys: true });
const alerts = new Map();
if (!Array.isArray(rules?.groups)) problems.push('prometheus-rules.yaml: no `groups` list');
for (const group of rules?.groups ?? []) {
  if (typeof group.name !== 'string') problems.push('a group without a name');
  for (const rule of group.rules ?? []) {
    const where = `prometheus-rules.yaml ${group.name}/${rule.alert ?? rule.record ?? '?'}`;
    if (rule.record !== undefined) {
      if (typeof rule.expr !== 'string') problems.push(`${where}: no expr`);
      continue;
    }
    if (typeof rule.alert !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(rule.alert)) problems.push(`${where}: no alert name`);
    if (alerts.has(rule.alert)) problems.push(`${where}: alert defined twice`);
    alerts.set(rule.alert, rule);
    if (typeof rule.expr !== 'string' || rule.expr.trim() === '') problems.push(`${where}: no expr`);
    else if (!balanced(rule.expr)) problems.push(`${where}: unbalanced brackets in expr`);
    if (typeof rule.for !== 'string' || !/^(\d+(ms|s|m|h|d|w|y))+$/.test(rule.for)) problems.push(`${where}: no valid for`);
    if (!SEVERITIES.includes(rule.labels?.severity)) problems.push(`${where}: labels.severity not one of ${SEVERITIES.join(', ')}`);
    if (typeof rule.annotations?.summary !== 'string') problems.push(`${where}: no annotations.summary`);
    const url = rule.annotations?.runbook_url;
    const anchor = typeof url === 'string' && /runbook\.md#/.test(url) ? url.split('#')[1] : undefined;
    if (anchor === undefined) problems.push(`${where}: annotations.runbook_url does not point into runbook.md`);
    else if (!anchors.has(anchor)) problems.push(`${where}: runbook.md has no heading for #${anchor}`);
    const allowed = new Set(['alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations']);
    for (const key of Object.keys(rule)) if (!allowed.has(key)) problems.push(`${where}: unknown field ${key}`);
  }
}
for (const name of REQUIRED_ALERTS) if (!alerts.has(name)) problems.push(`prometheus-rules.yaml: alert ${name} is missing`);
const linked = new Set([...alerts.values()].map((rule) => String(rule.annotations?.runbook_url).split('#')[1]));
for (const [, heading] of runbook.matchAll(/^###\s+(.+)$/gm)) {
  if (!linked.has(heading.trim().toLowerCase())) problems.push(`runbook.md: entry "${heading}" belongs to no alert`);
}

const dashboard = JSON.parse(readFileSync(join(dir, 'grafana-dashboard.json'), 'utf8'));
const variables = dashboard.templating?.list ?? [];
const datasource = variables.find((variable) => variable.type === 'datasource' && variable.query === 'prometheus');
if (datasource === undefined) problems.push('grafana-dashboard.json: no datasource variable of type prometheus');
const panels = (dashboard.panels ?? []).flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row');
const expressions = [];
const ids = new Set();
for (const panel of panels) {
  if (ids.has(panel.id)) problems.push(`grafana-dashboard.json: panel id ${panel.id} twice`);
  ids.add(panel.id);
  if (panel.datasource?.uid !== `\${${datasource?.name}}`) {
    problems.push(`grafana-dashboard.json: panel "${panel.title}" does not use the datasource variable`);
  }
  for (const target of panel.targets ?? []) {
    if (!balanced(target.expr ?? '')) problems.push(`grafana-dashboard.json: panel "${panel.title}": unbalanced brackets`);
    expressions.push(target.expr ?? '');
  }
}
for (const metric of METRICS) {
  if (!expressions.some((expr) => expr.includes(metric))) problems.push(`grafana-dashboard.json: no panel shows ${metric}`);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`${dir}: ${alerts.size} alerts, each with its runbook entry; dashboard with ${panels.length} panels`);

function balanced(text) {
  const pairs = { ')': '(', ']': '[', '}': '{' };
  const stack = [];
  for (const char of text.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if ('([{'.includes(char)) stack.push(char);
    else if (char in pairs && stack.pop() !== pairs[char]) return false;
  }
  return stack.length === 0;
}

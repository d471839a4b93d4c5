'use strict';
/**
 * The alert rules and the dashboard that ship (monitoring/): promtool (Debian's
 * prometheus package; .ci/run installs it) checks the rules and runs their unit
 * tests, each alert has a case where it fires and one where it does not, and
 * every metric the rules and the dashboard read is one the exporter serves.
 * (test/e2e/monitor.test.js checks the same names in a real scrape.) Without
 * promtool this fails: it is part of CI, never skipped.
 */
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');
const { MetricSources, createMetricsExporter } = require('../../../dist/lib/metrics');
const { metricNames, monitoringDir, alertRules, dashboardQueries } = require('../../support/promql');

const PROMTOOL = process.env.PROMTOOL || 'promtool';
const dir = monitoringDir();

function promtool(...args) {
  const run = spawnSync(PROMTOOL, args, { cwd: dir, encoding: 'utf8' });
  if (run.error?.code === 'ENOENT') {
    assert.fail(`${PROMTOOL} is not installed: apt-get install -y prometheus (Debian's package has promtool)`);
  }
  return run;
}

/** The names a scrape of the exporter can hold: its metrics, and a histogram's _bucket, _sum and _count. */
async function exportedNames() {
  const { registry } = createMetricsExporter(new MetricSources());
  const names = new Set();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (metric.type === 'histogram') for (const end of ['_bucket', '_sum', '_count']) names.add(metric.name + end);
  }
  return names;
}

describe('monitoring: alert rules and dashboard', function () {
  this.timeout(60000);

  it('promtool checks the rules file', () => {
    const run = promtool('check', 'rules', 'prometheus-rules.yml');
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /SUCCESS: \d+ rules found/);
  });

  it('promtool runs the rules’ unit tests, and they pass', () => {
    const run = promtool('test', 'rules', 'prometheus-rules.test.yml');
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /SUCCESS/);
  });

  it('every alert has a test where it fires and one where it does not', () => {
    const tests = yaml.load(fs.readFileSync(path.join(dir, 'prometheus-rules.test.yml'), 'utf8')).tests;
    const cases = tests.flatMap((t) => t.alert_rule_test ?? []);
    const alerts = alertRules(dir)
      .map((r) => r.alert)
      .filter(Boolean);
    assert.ok(alerts.length >= 6, `alerts: ${alerts}`);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert);
      assert.ok(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${alert}: no test where it fires`,
      );
      assert.ok(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${alert}: no test where it does not fire`,
      );
    }
  });

  it('a retry pause does not fire the unfinished-event alert, which reads the gauge that leaves pauses out', () => {
    const rule = alertRules(dir).find((r) => r.alert === 'DetectionBridgeEventUnfinished');
    assert.deepEqual(metricNames(rule.expr), ['detection_bridge_oldest_unpaused_event_age_seconds']);
    const tests = yaml.load(fs.readFileSync(path.join(dir, 'prometheus-rules.test.yml'), 'utf8')).tests;
    const retrying = tests.find((t) => t.input_series.some((s) => s.series.includes('path="/retrying"')));
    assert.ok(retrying, 'a test with an event retried');
    for (const c of retrying.alert_rule_test.filter((c) => c.alertname === rule.alert)) {
      assert.ok(!(c.exp_alerts ?? []).some((a) => a.exp_labels.path === '/retrying'), `fires for the retried event at ${c.eval_time}`);
    }
  });

  it('reads metric names out of PromQL: not functions, labels, keywords, ranges or numbers', () => {
    assert.deepEqual(
      metricNames(
        'histogram_quantile(0.95, sum by (le, path) (rate(a_bucket{path=~"$path",x="b c"}[$__rate_interval]))) > 1e3 and on (path) (b offset 1h) unless c == bool 0',
      ),
      ['a_bucket', 'b', 'c'],
    );
    assert.deepEqual(metricNames('label_values(d{job=~"$job"}, instance)'), ['d']);
  });

  it('every metric the rules and the dashboard read is one the exporter serves', async () => {
    const exported = await exportedNames();
    const queries = [...alertRules(dir).map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })), ...dashboardQueries(dir)];
    assert.ok(queries.length > 20, `${queries.length} queries`);
    const unknown = queries.flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((n) => !exported.has(n))
        .map((n) => `${where}: ${n}`),
    );
    assert.deepEqual(unknown, []);
    for (const { where, expr } of queries) assert.ok(metricNames(expr).length > 0, `${where} reads no metric: ${expr}`);
  });

  it('ships in the package: monitoring/ is in package.json "files"', () => {
    const files = JSON.parse(fs.readFileSync(path.join(dir, '..', 'package.json'), 'utf8')).files;
    assert.ok(files.includes('monitoring'), JSON.stringify(files));
  });
});

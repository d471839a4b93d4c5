'use strict';
/**
 * What the shipped monitoring files (monitoring/: the alert rules, the
 * Grafana dashboard) query, for the tests that check each name against what
 * the package exports: the unit test against the exporter's registry, the
 * end-to-end test against a real Prometheus' scrape. The metric names of a
 * PromQL expression are read by a small tokenizer: label matchers, ranges,
 * strings and grouping clauses dropped; functions, keywords and numbers left
 * out.
 */
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** The metric names `expr` (PromQL) reads. */
function metricNames(expr) {
  const s = String(expr)
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    // Grafana's label_values(metric, label): the metric only
    .replace(/label_values\s*\(([^,]*),[^)]*\)/g, ' $1 ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set();
  for (const m of s.matchAll(/(\d[\w.]*)|([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (m[1] || m[3] || KEYWORDS.has(m[2].toLowerCase())) continue;
    names.add(m[2]);
  }
  return [...names];
}

/** The package's monitoring directory (the source tree's, or an installed package's). */
function monitoringDir(root = path.join(__dirname, '..', '..')) {
  return path.join(root, 'monitoring');
}

/** Every alert rule of the shipped rules file: [{alert, expr}]. */
function alertRules(dir = monitoringDir()) {
  const doc = yaml.load(fs.readFileSync(path.join(dir, 'prometheus-rules.yml'), 'utf8'));
  return doc.groups.flatMap((g) => g.rules);
}

/** Every query of the shipped dashboard: panel targets (in rows too) and template variables: [{where, expr}]. */
function dashboardQueries(dir = monitoringDir()) {
  const dashboard = JSON.parse(fs.readFileSync(path.join(dir, 'grafana-dashboard.json'), 'utf8'));
  const out = [];
  const walk = (panels) => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) if (target.expr) out.push({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr });
      walk(panel.panels);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    out.push({ where: `variable ${variable.name}`, expr: typeof variable.query === 'string' ? variable.query : variable.query.query });
  }
  return out;
}

module.exports = { metricNames, monitoringDir, alertRules, dashboardQueries };

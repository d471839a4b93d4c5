'use strict';
/**
 * CI's job list (.ci/pipeline.js) as `--plan` prints it, without running a
 * job: every test file under test/ is in a job of the dev phase (a folder
 * moved or added without its line in SUITES would otherwise not run in CI,
 * and that phase runs every assertion but languages.test.js, which runs on
 * Node-RED 5), and the load tests run after the rest, beside
 * none of it.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');

describe('CI: the pipeline runs every test file', function () {
  this.timeout(20000);
  let plan;

  before(function () {
    plan = execFileSync(process.execPath, [path.join(ROOT, '.ci', 'pipeline.js'), '--plan'], { cwd: ROOT, encoding: 'utf8' });
  });

  it('every test file under test/ is a job or in one, on the dev phase (languages on Node-RED 5)', function () {
    const files = fs
      .readdirSync(path.join(ROOT, 'test'), { recursive: true })
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => f.split(path.sep).join('/'));
    const jobLine = (phase) => plan.split('\n').find((l) => l.startsWith(`  ${phase}: `)) || '';
    const dev = jobLine('node20 · Node-RED dev');
    const nr5 = jobLine('node22 · Node-RED 5');
    assert.ok(dev, `the dev phase's jobs are listed:\n${plan.slice(0, 2000)}`);
    for (const file of files) {
      const [folder] = file.split('/');
      // test/package runs in the unit job (SUITES.unit in .ci/pipeline.js)
      const suite = folder === 'package' ? 'unit' : folder;
      // unit and nodes are one job each, the other files a job of their own
      const inDev = ['unit', 'nodes'].includes(suite) ? dev.includes(` ${suite} `) : dev.includes(` ${file} `);
      const inNr5 = nr5.includes(` ${file} `);
      assert.ok(inDev || (file === 'browser/languages.test.js' && inNr5), `test/${file} runs in CI`);
    }
  });

  it('the load tests run after every other job, beside none of it', function () {
    const rows = plan
      .split('\n')
      .map((l) => /^\s+(\d+)s →\s+(\d+)s {2}(.*)$/.exec(l))
      .filter(Boolean)
      .map(([, from, to, id]) => ({ from: Number(from), to: Number(to), id }));
    const load = rows.filter((r) => r.id.includes(' · load/'));
    assert.ok(load.length > 0, 'load jobs in the plan');
    for (const r of load) assert.match(r.id, /\(apart\)$/);
    const lastOther = Math.max(...rows.filter((r) => !r.id.includes(' · load/') && !r.id.startsWith('install ')).map((r) => r.to));
    for (const r of load) assert.ok(r.from >= lastOther, `${r.id} starts at ${r.from} s, after every other job (${lastOther} s)`);
    // the three side by side
    const [burst, soak, hostile] = ['burst', 'demo-soak', 'hostile'].map((name) => load.find((r) => r.id.includes(`load/${name}.test.js`)));
    for (const [a, b] of [
      [burst, soak],
      [burst, hostile],
      [soak, hostile],
    ])
      assert.ok(a.from < b.to && b.from < a.to, `${a.id} and ${b.id} run together: ${JSON.stringify(load)}`);
  });
});

'use strict';
/**
 * lib/delivery/downstream: whether a detection-done node is downstream of a
 * receiver's first output, in flows as Node-RED stores them, and what the
 * "Finished when" choice makes of it.
 */
const assert = require('node:assert/strict');
const { doneDownstream, completionPlan, FINISHED_WHEN } = require('../../../dist/lib/delivery/downstream');

const tab = (id, extra = {}) => ({ id, type: 'tab', label: id, ...extra });
const node = (id, type, z, wires = [], extra = {}) => ({ id, type, z, wires, ...extra });
const receiver = (id, z, first = [], second = []) => node(id, 'detection-in', z, [first, second]);
const done = (id, z, extra = {}) => node(id, 'detection-done', z, [], extra);
const fn = (id, z, next = [], extra = {}) => node(id, 'function', z, [next], extra);
const linkOut = (id, z, links, mode) => ({ id, type: 'link out', z, links, ...(mode ? { mode } : {}), wires: [] });
const linkIn = (id, z, next = []) => ({ id, type: 'link in', z, links: [], wires: [next] });
const linkCall = (id, z, links, next = [], extra = {}) => ({ id, type: 'link call', z, links, linkType: 'static', wires: [next], ...extra });
/** A subflow template with one input wired to `inTo` and outputs wired from `outs` (one array of {id, port} per output). */
const template = (id, inTo, outs = []) => ({
  id,
  type: 'subflow',
  name: id,
  in: [{ x: 50, y: 30, wires: inTo.map((t) => ({ id: t })) }],
  out: outs.map((wires) => ({ x: 500, y: 30, wires })),
});
const instance = (id, templateId, z, wires = [], extra = {}) => node(id, `subflow:${templateId}`, z, wires, extra);

describe('lib/delivery/downstream', () => {
  describe('wires', () => {
    it('finds a done node wired from output 1, directly or through other nodes', () => {
      assert.equal(doneDownstream([tab('t'), receiver('in', 't', ['d']), done('d', 't')], 'in'), true);
      const flows = [tab('t'), receiver('in', 't', ['a']), fn('a', 't', ['b']), node('b', 'switch', 't', [[], ['d']]), done('d', 't')];
      assert.equal(doneDownstream(flows, 'in'), true);
    });

    it('a done node on the same tab but not downstream, or after output 2 only, does not count', () => {
      assert.equal(doneDownstream([tab('t'), receiver('in', 't', ['a']), fn('a', 't'), done('d', 't')], 'in'), false);
      assert.equal(doneDownstream([tab('t'), receiver('in', 't', [], ['d']), done('d', 't')], 'in'), false);
      // another receiver's done node
      const flows = [tab('t'), tab('u'), receiver('A', 't', ['dA']), done('dA', 't'), receiver('B', 'u', ['x']), fn('x', 'u')];
      assert.equal(doneDownstream(flows, 'A'), true);
      assert.equal(doneDownstream(flows, 'B'), false);
    });

    it('follows cycles without looping and treats a missing receiver as having nothing downstream', () => {
      const flows = [tab('t'), receiver('in', 't', ['a']), fn('a', 't', ['b']), fn('b', 't', ['a'])];
      assert.equal(doneDownstream(flows, 'in'), false);
      assert.equal(doneDownstream(flows, 'nope'), false);
      assert.equal(doneDownstream([], 'in'), false);
    });
  });

  describe('disabled nodes and flows', () => {
    it('nothing is followed through a disabled node, and a disabled done node does not count', () => {
      assert.equal(doneDownstream([tab('t'), receiver('in', 't', ['d']), done('d', 't', { d: true })], 'in'), false);
      assert.equal(doneDownstream([tab('t'), receiver('in', 't', ['a']), fn('a', 't', ['d'], { d: true }), done('d', 't')], 'in'), false);
    });

    it('a done node on a disabled flow does not count; a disabled receiver has nothing downstream', () => {
      const flows = [
        tab('t'),
        tab('off', { disabled: true }),
        receiver('in', 't', ['lo']),
        linkOut('lo', 't', ['li']),
        linkIn('li', 'off', ['d']),
        done('d', 'off'),
      ];
      assert.equal(doneDownstream(flows, 'in'), false);
      assert.equal(doneDownstream([tab('t'), { ...receiver('in', 't', ['d']), d: true }, done('d', 't')], 'in'), false);
    });
  });

  describe('link nodes', () => {
    it('link out → link in on another tab → done', () => {
      const flows = [
        tab('t'),
        tab('u'),
        receiver('in', 't', ['lo']),
        linkOut('lo', 't', ['li']),
        linkIn('li', 'u', ['a']),
        fn('a', 'u', ['d']),
        done('d', 'u'),
      ];
      assert.equal(doneDownstream(flows, 'in'), true);
      // the link out not connected to that link in
      assert.equal(doneDownstream([...flows.filter((n) => n.id !== 'lo'), linkOut('lo', 't', [])], 'in'), false);
    });

    it('link call → link in … return link out → the outputs of the call that called', () => {
      const routine = [linkIn('rin', 'lib', ['work']), fn('work', 'lib', ['ret']), linkOut('ret', 'lib', [], 'return')];
      const flows = [tab('t'), tab('lib'), ...routine, receiver('in', 't', ['call']), linkCall('call', 't', ['rin'], ['d']), done('d', 't')];
      assert.equal(doneDownstream(flows, 'in'), true);
      // another call of the same routine leads to a done node; this one's outputs do not
      const two = [
        tab('t'),
        tab('u'),
        tab('lib'),
        ...routine,
        receiver('in', 't', ['call']),
        linkCall('call', 't', ['rin'], ['end']),
        fn('end', 't'),
        linkCall('other', 'u', ['rin'], ['d']),
        done('d', 'u'),
      ];
      assert.equal(doneDownstream(two, 'in'), false);
      // a done node inside the routine counts for every caller
      assert.equal(doneDownstream([...two.filter((n) => n.id !== 'work'), fn('work', 'lib', ['ret', 'd2']), done('d2', 'lib')], 'in'), true);
    });

    it('a dynamic link call may reach any link in; a recursive routine ends', () => {
      const flows = [
        tab('t'),
        tab('u'),
        receiver('in', 't', ['call']),
        linkCall('call', 't', [], [], { linkType: 'dynamic' }),
        linkIn('li', 'u', ['d']),
        done('d', 'u'),
      ];
      assert.equal(doneDownstream(flows, 'in'), true);
      const recursive = [
        tab('t'),
        tab('lib'),
        receiver('in', 't', ['call']),
        linkCall('call', 't', ['rin'], ['d']),
        done('d', 't'),
        // the routine calls itself, or returns
        linkIn('rin', 'lib', ['again', 'ret']),
        linkCall('again', 'lib', ['rin'], ['ret']),
        linkOut('ret', 'lib', [], 'return'),
      ];
      assert.equal(doneDownstream(recursive, 'in'), true);
    });

    it('a receiver inside a called routine: a return goes back to every link call', () => {
      const flows = [
        tab('t'),
        tab('lib'),
        receiver('in', 'lib', ['ret']),
        linkOut('ret', 'lib', [], 'return'),
        linkCall('call', 't', ['x'], ['d']),
        done('d', 't'),
      ];
      assert.equal(doneDownstream(flows, 'in'), true);
    });
  });

  describe('subflows', () => {
    /** A template passing its input through `inner` to its one output. */
    const passThrough = (id, extraInside = []) => [
      template(id, [`${id}-inner`], [[{ id: `${id}-inner`, port: 0 }]]),
      fn(`${id}-inner`, id),
      ...extraInside,
    ];

    it('through an instance: into the template and out again on to the instance’s wires', () => {
      const flows = [tab('t'), ...passThrough('sf'), receiver('in', 't', ['inst']), instance('inst', 'sf', 't', [['d']]), done('d', 't')];
      assert.equal(doneDownstream(flows, 'in'), true);
      // the instance's output not wired on
      assert.equal(doneDownstream([...flows.filter((n) => n.id !== 'inst'), instance('inst', 'sf', 't', [[]])], 'in'), false);
    });

    it('another instance of the same template wired to a done node does not count for this one', () => {
      const flows = [
        tab('t'),
        ...passThrough('sf'),
        receiver('in', 't', ['i1']),
        instance('i1', 'sf', 't', [['end']]),
        fn('end', 't'),
        instance('i2', 'sf', 't', [['d']]),
        done('d', 't'),
      ];
      assert.equal(doneDownstream(flows, 'in'), false);
    });

    it('a done node inside the template; a disabled instance is not entered', () => {
      const flows = [tab('t'), template('sf', ['d']), done('d', 'sf'), receiver('in', 't', ['inst']), instance('inst', 'sf', 't')];
      assert.equal(doneDownstream(flows, 'in'), true);
      assert.equal(doneDownstream([...flows.filter((n) => n.id !== 'inst'), instance('inst', 'sf', 't', [], { d: true })], 'in'), false);
    });

    it('an input wired straight to an output', () => {
      const flows = [
        tab('t'),
        template('sf', [], [[{ id: 'sf', port: 0 }]]),
        receiver('in', 't', ['inst']),
        instance('inst', 'sf', 't', [['d']]),
        done('d', 't'),
      ];
      assert.equal(doneDownstream(flows, 'in'), true);
    });

    it('a receiver inside a template: its runtime view (alias, instance) follows that instance; without it, any instance', () => {
      const flows = [
        tab('t'),
        template('sf', [], [[{ id: 'rx', port: 0 }], [{ id: 'rx', port: 1 }]]),
        receiver('rx', 'sf'),
        instance('withDone', 'sf', 't', [['d'], []]),
        done('d', 't'),
        instance('without', 'sf', 't', [['end'], ['d']]),
        fn('end', 't'),
      ];
      assert.equal(doneDownstream(flows, { id: 'withDone-rx', z: 'withDone', alias: 'rx' }), true);
      assert.equal(doneDownstream(flows, { id: 'without-rx', z: 'without', alias: 'rx' }), false, 'output 2 of the receiver leaves by port 2');
      // the editor: the template's receiver, for any of its instances
      assert.equal(doneDownstream(flows, 'rx'), true);
    });

    it('nested instances: out of the inner template, then out of the outer one', () => {
      const flows = [
        tab('t'),
        template('inner', [], [[{ id: 'rx', port: 0 }]]),
        receiver('rx', 'inner'),
        template('outer', [], [[{ id: 'nested', port: 0 }]]),
        instance('nested', 'inner', 'outer', [[]]),
        instance('o1', 'outer', 't', [['d']]),
        done('d', 't'),
        instance('o2', 'outer', 't', [['end']]),
        fn('end', 't'),
      ];
      // Node-RED names a nested instance `<outer instance>-<its id in the template>`
      assert.equal(doneDownstream(flows, { id: 'o1-nested-rx', z: 'o1-nested', alias: 'rx' }), true);
      assert.equal(doneDownstream(flows, { id: 'o2-nested-rx', z: 'o2-nested', alias: 'rx' }), false);
    });
  });

  describe('complete and catch nodes', () => {
    it('a complete node watching a node reached starts from there', () => {
      const flows = [
        tab('t'),
        receiver('in', 't', ['work']),
        fn('work', 't'),
        node('c', 'complete', 't', [['d']], { scope: ['work'] }),
        done('d', 't'),
      ];
      assert.equal(doneDownstream(flows, 'in'), true);
      // watching a node the events never reach, or nothing at all
      const other = [...flows.filter((n) => n.id !== 'c'), fn('elsewhere', 't'), node('c', 'complete', 't', [['d']], { scope: ['elsewhere'] })];
      assert.equal(doneDownstream(other, 'in'), false);
      assert.equal(doneDownstream([...flows.filter((n) => n.id !== 'c'), node('c', 'complete', 't', [['d']], { scope: null })], 'in'), false);
      // a complete node on another tab does not see this tab's nodes
      assert.equal(
        doneDownstream([...flows.filter((n) => n.id !== 'c'), tab('u'), node('c', 'complete', 'u', [['d']], { scope: ['work'] })], 'in'),
        false,
      );
    });

    it('catch and status nodes are not followed', () => {
      for (const type of ['catch', 'status']) {
        const flows = [tab('t'), receiver('in', 't', ['work']), fn('work', 't'), node('c', type, 't', [['d']], { scope: null }), done('d', 't')];
        assert.equal(doneDownstream(flows, 'in'), false, type);
      }
    });
  });

  describe('completionPlan', () => {
    it('auto (also missing or unknown) waits only with a done node downstream; the explicit choices override', () => {
      assert.deepEqual([...FINISHED_WHEN], ['auto', 'handed', 'done']);
      for (const choice of ['auto', undefined, 'something']) {
        assert.deepEqual(completionPlan(choice, true), { awaitCompletion: true, doneDownstream: true, noDoneWired: false });
        assert.deepEqual(completionPlan(choice, false), { awaitCompletion: false, doneDownstream: false, noDoneWired: false });
      }
      assert.equal(completionPlan('handed', true).awaitCompletion, false);
      assert.deepEqual(completionPlan('done', false), { awaitCompletion: true, doneDownstream: false, noDoneWired: true });
      assert.deepEqual(completionPlan('done', true), { awaitCompletion: true, doneDownstream: true, noDoneWired: false });
    });
  });
});

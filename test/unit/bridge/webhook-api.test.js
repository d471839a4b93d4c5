'use strict';
/**
 * The WebHooks API's layout (lib/bridge/webhook-api.ts): defaults, paths and
 * names read from a dialog's options with their problems, the JSON body built
 * from a spec and a bridge's answer read back. Runs against dist/.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');

const wh = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'webhook-api'));

const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const spec = (over = {}) => ({
  hookId: ID,
  name: 'SecurityServer1',
  address: 'https://receiver.example:1880/detections',
  allowSelfSigned: false,
  resilient: true,
  face: true,
  plate: false,
  ...over,
});
const api = (options) => {
  const result = wh.resolveWebhookApi(options);
  assert.equal(result.ok, true, JSON.stringify(result.problems));
  return result.api;
};
const problems = (options) => {
  const result = wh.resolveWebhookApi(options);
  assert.equal(result.ok, false);
  return result.problems.map((p) => [p.option, p.key]);
};

describe('bridge/webhook-api', () => {
  it('defaults: the assumed paths and names, with empty options taken as not given', () => {
    const expected = {
      paths: { controller: '/api/v1/webhooks', newId: '/api/v1/webhooks/new' },
      names: {
        name: 'name',
        address: 'url',
        allowSelfSigned: 'allowSelfSigned',
        basicUser: 'basicUsername',
        basicPassword: 'basicPassword',
        headerKey: 'headerKey',
        headerValue: 'headerValue',
        eventFilter: 'eventFilter',
      },
    };
    assert.deepEqual(api(), expected);
    assert.deepEqual(api({ paths: { controller: '  ', newId: '' } }), expected);
  });

  it('custom paths (a trailing slash dropped) and names', () => {
    const custom = api({ paths: { controller: '/hooks/', newId: '/hooks/id' }, names: { address: 'webHookUrl', name: ' Name ' } });
    assert.deepEqual(custom.paths, { controller: '/hooks', newId: '/hooks/id' });
    assert.equal(custom.names.address, 'webHookUrl');
    assert.equal(custom.names.name, 'Name');
    assert.equal(wh.webhookPath(custom, ID), `/hooks/${ID}`);
  });

  it('each bad path and name is named with its option', () => {
    assert.deepEqual(problems({ paths: { controller: 'https://bridge/api/v1/webhooks', newId: '/api/v1/webhooks/new?x=1' } }), [
      ['paths.controller', 'enroll.path.absolute'],
      ['paths.newId', 'enroll.path.query'],
    ]);
    assert.deepEqual(problems({ paths: { controller: '/api/v1/webhooks/{hookId}' } }), [['paths.controller', 'enroll.path.query']]);
    assert.deepEqual(problems({ names: { headerKey: '', basicUser: 'user name' } }), [
      ['names.basicUser', 'webhook.name.space'],
      ['names.headerKey', 'webhook.name.empty'],
    ]);
    // two fields with one name, or a field named as a documented one, would overwrite each other
    assert.deepEqual(problems({ names: { headerValue: 'headerKey', name: 'hookId' } }), [
      ['names.name', 'webhook.name.same'],
      ['names.headerValue', 'webhook.name.same'],
    ]);
    assert.equal(wh.resolveWebhookApi({ names: { name: 'webHookLpr' } }).problems[0].params.other, 'plate');
  });

  it('hookId: a GUID, never the empty one; braces and upper case taken', () => {
    assert.equal(wh.normalizeHookId(` {${ID.toUpperCase()}} `), ID);
    for (const bad of [wh.EMPTY_GUID, '', 'new', `${ID}0`, undefined, 42, ID.replace(/-/g, '')]) {
      assert.equal(wh.normalizeHookId(bad), undefined, String(bad));
    }
  });

  it('the body: documented names fixed, the others as configured; optional parts only when given', () => {
    const body = wh.webhookBody(api(), spec()).body;
    assert.deepEqual(body, {
      hookId: ID,
      name: 'SecurityServer1',
      url: 'https://receiver.example:1880/detections',
      allowSelfSigned: false,
      resilient: true,
      webHookFaceRec: true,
      webHookLpr: false,
    });
    const renamed = api({ names: { address: 'webHookAddress', basicUser: 'user', headerValue: 'value', eventFilter: 'filter' } });
    const full = wh.webhookBody(
      renamed,
      spec({
        basic: { user: ' ann ', password: 'p w' },
        header: { key: 'Authorization', value: 'Bearer x' },
        eventFilter: 2,
        hookId: ID.toUpperCase(),
      }),
    ).body;
    assert.deepEqual(full, {
      hookId: ID,
      name: 'SecurityServer1',
      webHookAddress: 'https://receiver.example:1880/detections',
      allowSelfSigned: false,
      user: 'ann',
      basicPassword: 'p w',
      headerKey: 'Authorization',
      value: 'Bearer x',
      resilient: true,
      webHookFaceRec: true,
      webHookLpr: false,
      filter: 2,
    });
  });

  it('a spec that cannot be sent: every problem named', () => {
    const result = wh.webhookBody(
      api(),
      spec({
        hookId: wh.EMPTY_GUID,
        name: ' ',
        address: 'receiver:1880',
        resilient: 'yes',
        face: false,
        basic: { user: '', password: 'x' },
        header: { key: ' ', value: 'v' },
      }),
    );
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.problems.map((p) => [p.option, p.key]),
      [
        ['hookId', 'webhook.spec.hook-id'],
        ['name', 'webhook.spec.name'],
        ['address', 'webhook.spec.address'],
        ['resilient', 'webhook.spec.flag'],
        ['face', 'webhook.spec.no-kind'],
        ['basic', 'webhook.spec.basic-user'],
        ['header', 'webhook.spec.header-key'],
      ],
    );
  });

  it('reads a WebHook back leniently: other case, wrong types as missing, unknown properties kept aside', () => {
    const read = wh.readWebhook(api(), {
      HookId: ID.toUpperCase(),
      Name: 'SecurityServer1',
      url: 'https://receiver.example/d',
      allowSelfSigned: 'no',
      headerKey: 'Authorization',
      webHookLpr: true,
      createdAt: '2026-12-04T10:00:00Z',
    });
    assert.equal(read.ok, true);
    assert.deepEqual(read.webhook, {
      hookId: ID,
      name: 'SecurityServer1',
      address: 'https://receiver.example/d',
      allowSelfSigned: undefined,
      basic: undefined,
      header: { key: 'Authorization', value: undefined },
      resilient: undefined,
      face: undefined,
      plate: true,
      eventFilter: undefined,
      extra: { createdAt: '2026-12-04T10:00:00Z' },
    });
    // what was sent reads back as the same WebHook
    const sent = wh.webhookBody(api(), spec({ basic: { user: 'ann', password: 'pw' }, eventFilter: 'all' })).body;
    const back = wh.readWebhook(api(), sent).webhook;
    assert.deepEqual(
      { ...back, extra: undefined },
      { ...spec({ basic: { user: 'ann', password: 'pw' }, eventFilter: 'all' }), header: undefined, extra: undefined },
    );
    assert.deepEqual(wh.readWebhook(api(), { name: 'x' }), { ok: false, key: 'webhook.answer.hook-id' });
    assert.deepEqual(wh.readWebhook(api(), [ID]), { ok: false, key: 'webhook.answer.not-object' });
  });
});

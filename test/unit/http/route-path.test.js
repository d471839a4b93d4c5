'use strict';
/** lib/http/route-path: a typed path, a request's path and the key two routes are compared by (the dialogs run it too). */
const assert = require('node:assert/strict');
const { normalizeNodePath, pathnameOf, routeKey, routePathProblem, typedRouteKey } = require('../../../dist/lib/http/route-path');
const { listenerRouteKey } = require('../../../dist/lib/http/listener');
const { routeKey: httpNodeRouteKey } = require('../../../dist/nodes/shared/routes');

describe('lib/http/route-path', () => {
  it('one route key: slashes squeezed, no trailing slash, any case; the root stays', () => {
    assert.equal(routeKey('//Hooks//A/'), '/hooks/a');
    assert.equal(routeKey('/'), '/');
    assert.equal(routeKey('//'), '/');
    assert.equal(listenerRouteKey, routeKey, "the listener's own port keys routes the same way");
    assert.equal(httpNodeRouteKey, routeKey, "and Node-RED's httpNode too");
  });

  it('a typed path: trimmed, with a leading slash; anything else is the root', () => {
    assert.equal(normalizeNodePath(' hooks/a '), '/hooks/a');
    assert.equal(normalizeNodePath('/x'), '/x');
    assert.equal(normalizeNodePath(undefined), '/');
    assert.equal(normalizeNodePath(7), '/');
    assert.equal(typedRouteKey(' Hooks//A/ '), '/hooks/a');
  });

  it("a request's path: without its query, percent-decoded where it decodes", () => {
    assert.equal(pathnameOf('/a%20b?x=1'), '/a b');
    assert.equal(pathnameOf('/a%E0?x'), '/a%E0', 'kept as it is when it does not decode');
    assert.equal(pathnameOf(undefined), '/');
  });

  it('what keeps a typed path from being a route', () => {
    for (const p of ['', ' ', '/', ' / ', undefined, 3]) assert.equal(routePathProblem(p), 'path-empty', JSON.stringify(p));
    assert.equal(routePathProblem('/a b'), 'path-spaces');
    assert.equal(routePathProblem('/a?b'), 'path');
    assert.equal(routePathProblem('/a#b'), 'path');
    assert.equal(routePathProblem('hooks/a'), undefined);
    assert.equal(routePathProblem(' /detections '), undefined);
  });
});

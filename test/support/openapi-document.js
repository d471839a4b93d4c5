'use strict';
/**
 * OpenAPI 3 documents written for the tests and the bench, NOT the platform's
 * (its file is not public): the three named endpoints in full
 * (test/fixtures/openapi/named-endpoints.json) and a generated document of
 * the API's size, 688 operations in 14 modules, to measure with a realistic
 * number of operations. Module and resource names are invented.
 */
const fs = require('node:fs');
const path = require('node:path');

const NAMED_PATH = path.join(__dirname, '..', 'fixtures', 'openapi', 'named-endpoints.json');

const MODULES = ['access', 'alarms', 'analytics', 'cameras', 'casino', 'faces', 'lpr', 'maps', 'pos', 'portal', 'reports', 'sites', 'tito', 'users'];
const RESOURCES = ['items', 'groups', 'rules', 'schedules', 'events', 'notes', 'exports', 'settings', 'tags', 'zones'];

/** The named-endpoints document (a fresh copy), its release set to `version`. */
function namedDocument(version = '11.0') {
  const doc = JSON.parse(fs.readFileSync(NAMED_PATH, 'utf8'));
  doc.info.version = version;
  return doc;
}

const RECORD = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', nullable: true },
    enabled: { type: 'boolean' },
    priority: { type: 'integer', minimum: 0, maximum: 10 },
    labels: { type: 'array', items: { type: 'string' } },
    validFrom: { type: 'string', format: 'date-time' },
  },
};

/** The five calls on one resource of one module (the second set for a module instance). */
function resourceOperations(module, resource, instance) {
  const base = instance ? `/api/v2/${module}/plugins/{plugin_id}/${resource}` : `/api/v2/${module}/${resource}`;
  const prefix = `${module}_${instance ? 'instance_' : ''}${resource}`;
  const instanceParam = instance ? [{ name: 'plugin_id', in: 'path', required: true, schema: { type: 'string' } }] : [];
  const idParam = { name: `${resource}_id`, in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
  const body = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Record' } } } };
  const ok = { 200: { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Record' } } } } };
  return [
    [
      base,
      'get',
      {
        operationId: `${prefix}_list`,
        summary: `List the ${resource} of ${module}`,
        parameters: [
          ...instanceParam,
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          { name: 'search', in: 'query', schema: { type: 'string' } },
        ],
        responses: ok,
      },
    ],
    [
      base,
      'post',
      {
        operationId: `${prefix}_create`,
        summary: `Create one of the ${resource} of ${module}`,
        parameters: instanceParam,
        requestBody: body,
        responses: ok,
      },
    ],
    [
      `${base}/{${resource}_id}`,
      'get',
      { operationId: `${prefix}_get`, summary: `Read one of the ${resource} of ${module}`, parameters: [...instanceParam, idParam], responses: ok },
    ],
    [
      `${base}/{${resource}_id}`,
      'put',
      {
        operationId: `${prefix}_update`,
        summary: `Change one of the ${resource} of ${module}`,
        parameters: [...instanceParam, idParam],
        requestBody: body,
        responses: ok,
      },
    ],
    [
      `${base}/{${resource}_id}`,
      'delete',
      {
        operationId: `${prefix}_delete`,
        summary: `Delete one of the ${resource} of ${module}`,
        parameters: [...instanceParam, idParam],
        responses: { 204: { description: 'Deleted' } },
      },
    ],
  ];
}

/**
 * A document of `operations` operations (default 688) in `modules` modules
 * (default 14), each module a tag. The three named endpoints come first, so
 * the document describes them too.
 */
function generatedDocument({ operations = 688, modules = 14, version = '11.0' } = {}) {
  const doc = namedDocument(version);
  doc.info.title = `Generated test document: ${operations} operations in ${modules} modules (NOT the platform's schema)`;
  doc.components.schemas.Record = RECORD;
  const names = MODULES.slice(0, modules);
  doc.tags = names.map((name) => ({ name, description: `The ${name} module (generated)` }));
  let count = 3;
  const retag = { auth: 'users', portal: 'portal', pos: 'pos' };
  for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) if (op.tags) op.tags = [retag[op.tags[0]] ?? names[0]];
  for (let round = 0; count < operations; round++) {
    for (const module of names) {
      const resource =
        RESOURCES[Math.floor(round / 2) % RESOURCES.length] +
        (round >= RESOURCES.length * 2 ? String(Math.floor(round / (RESOURCES.length * 2))) : '');
      for (const [p, method, op] of resourceOperations(module, resource, round % 2 === 1)) {
        if (count >= operations) break;
        doc.paths[p] ??= {};
        doc.paths[p][method] = { tags: [module], ...op };
        count++;
      }
      if (count >= operations) break;
    }
  }
  return doc;
}

module.exports = { NAMED_PATH, namedDocument, generatedDocument };

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiateLanguage } from '../../src/http/pages/context.ts';

// Accept-Language → one of a status page's languages (issue 35 point 4; docs/api.md "Status pages (public pages)").
test('negotiateLanguage: by q, primary subtags, ties in order; * and q=0 ignored; one language or none asked → undefined', () => {
  const page = ['en', 'es', 'ja', 'zh', 'pt'] as const;
  assert.equal(negotiateLanguage('es-ES,es;q=0.9,en;q=0.8', page), 'es');
  assert.equal(negotiateLanguage('fr;q=1, en;q=0.2, ja;q=0.5', page), 'ja');
  assert.equal(negotiateLanguage('zh-Hans-CN', page), 'zh');
  assert.equal(negotiateLanguage('pt-PT, en', page), 'pt');
  assert.equal(negotiateLanguage('ja;q=0, en;q=0.1', page), 'en', 'q=0 means not this one');
  assert.equal(negotiateLanguage('*', page), undefined);
  assert.equal(negotiateLanguage('fr, de', page), undefined);
  assert.equal(negotiateLanguage('', page), undefined);
  assert.equal(negotiateLanguage(undefined, page), undefined);
  assert.equal(negotiateLanguage(';;;,,q=,ES;Q=0.7', page), 'es', 'malformed parts are skipped; case does not matter');
  assert.equal(negotiateLanguage('es', ['en'] as const), undefined, 'a page in one language has nothing to choose');
});

import { afterAll, beforeAll } from 'vitest';
import { describeApiDocument } from './default-stack/api-document.js';
import { describeApiExamples } from './default-stack/api-examples.js';
import { describeBoardPage } from './default-stack/board-page.js';
import { describeChangeFeed } from './default-stack/change-feed.js';
import { describeImport } from './default-stack/import.js';
import { describeDocsPage } from './default-stack/docs-page.js';
import { describeHomeBaseReferences } from './default-stack/home-base-references.js';
import { describeReadYourWrites } from './default-stack/read-your-writes.js';
import { describeUnifiedApi } from './default-stack/unified-api.js';
import { startStack, type Stack } from './stack.js';

// The topics that need the whole stack as `startStack()` makes it, with no gateway variable changed,
// share one stack started once; each keeps to a tenant of its own. A topic that needs other variables
// (health-overview, token-revocation) starts a stack of its own.

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

const current = () => stack;

describeApiDocument(current);
describeApiExamples(current);
describeDocsPage(current);
describeBoardPage(current);
describeHomeBaseReferences(current);
describeReadYourWrites(current);
describeChangeFeed(current);
describeImport(current);
// last: it ends by stopping the employees service
describeUnifiedApi(current);

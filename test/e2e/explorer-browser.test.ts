// The GraphQL explorer and the REST docs in a real browser (Chromium from the distribution's
// packages, driven by playwright-core), with every request to another origin refused, as on a
// machine without internet: the IDE at GET /graphql renders, a query typed into it runs with the
// session cookie of a browser sign-in and shows data; /api/docs/ lists the REST operations.
// Screenshots go to a temporary directory whose path the test prints.
// Without Chromium (CHROMIUM_PATH, default /usr/bin/chromium) the tests are skipped, saying so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`explorer-browser.test.ts: SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
}
const suite = haveChromium ? describe : describe.skip;

suite('in a browser without internet', () => {
  let t: TestApp;
  let base: string;
  let userDataDir: string;
  let shots: string;
  let context: BrowserContext;
  /** Requests the browser tried to send anywhere but this server (refused). */
  const elsewhere: string[] = [];
  const password = 'correct horse battery';
  let username: string;

  beforeAll(async () => {
    t = await startTestApp();
    username = (await t.createUser({ password })).username;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-chromium-'));
    shots = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-screenshots-'));
    console.log(`explorer-browser.test.ts: screenshots in ${shots}`);
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 800 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${base}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      elsewhere.push(url);
      return route.abort('internetdisconnected');
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    await t?.close();
  });

  async function newPage(): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    return { page, errors };
  }

  test('GET /graphql shows the IDE; a query typed into it runs with the session of a browser sign-in', async () => {
    const { page } = await newPage();
    // Sign in as a frontend would: the session and CSRF cookies land in the browser.
    await page.goto(`${base}/`);
    const login = await page.evaluate(
      async ([u, p]) => {
        const res = await fetch('/api/auth/session/login/', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: u, password: p }),
        });
        return res.status;
      },
      [username, password],
    );
    expect(login).toBe(200);

    await page.goto(`${base}/graphql`);
    const editor = page.locator('app-query-editor .cm-content').first();
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'explorer-loaded.png') });
    fs.writeFileSync(path.join(shots, 'explorer.html'), await page.content());

    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ me { username } }');
    await page.keyboard.press('Control+Enter');
    const result = page.locator('app-query-result', { hasText: username });
    await result.waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'explorer-result.png') });
    expect((await result.innerText()).replace(/\s+/g, '')).toContain(`"username":"${username}"`);
    await page.close();
  }, 120_000);

  test("a Bearer token set in the IDE's Auth tab is sent with the query typed into it", async () => {
    const user = await t.createUser();
    // No session cookie: only the header the IDE adds.
    await context.clearCookies();
    const { page } = await newPage();
    await page.goto(`${base}/graphql`);
    const editor = page.locator('app-query-editor .cm-content').first();
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    await page.getByText('Auth', { exact: true }).first().click();
    await page.locator('app-authorization-editor nz-select').click();
    await page
      .locator('nz-option-item', { hasText: /bearer/i })
      .first()
      .click();
    const token = page.locator('app-authorization-bearer .cm-content');
    await token.click();
    await page.keyboard.insertText(t.tokenFor(user));
    await page.getByText('Query', { exact: true }).first().click();
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ me { username isStaff } }');
    await page.keyboard.press('Control+Enter');
    const result = page.locator('app-query-result', { hasText: user.username });
    await result.waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'explorer-bearer.png') });
    expect((await result.innerText()).replace(/\s+/g, '')).toContain(`"username":"${user.username}"`);
    await page.close();
  }, 120_000);

  test('GET /api/docs/ renders the REST operations from local files', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${base}/api/docs/`);
    const tag = page.locator('.opblock-tag', { hasText: 'tenancy' }).first();
    await tag.waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'rest-docs.png') });
    const tags = await page.locator('.opblock-tag').allInnerTexts();
    expect(tags.map((s) => s.trim().split(/\s/)[0])).toEqual(expect.arrayContaining(['auth', 'data', 'secrets', 'storage', 'tenancy']));
    await tag.click();
    await page.locator('.opblock-summary-path', { hasText: '/api/organizations/' }).first().waitFor({ state: 'visible' });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('nothing was fetched from another origin', () => {
    console.log(`explorer-browser.test.ts: requests to other origins (refused): ${JSON.stringify(elsewhere)}`);
    expect(elsewhere).toEqual([]);
  });
});

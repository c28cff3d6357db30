// The remote half of GraphQL file uploads (distributed mode): when a subgraph fetch carries
// `Upload` variables (files still streaming in from the client's multipart request), the fetch
// is sent to the subgraph as a GraphQL multipart request of its own — `operations` with the
// uploads set to null, `map` naming where they go, then each file piped through as it arrives
// (one at a time, in order: graphql-upload-minimal streams files in request order). Other
// fetches take RemoteGraphQLDataSource's JSON way unchanged.
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { SubgraphContext } from '../../subgraphs/core/graphql/context.js';
import { Upload } from 'graphql-upload-minimal';
import { discardUploads, uploadsIn } from '../../subgraphs/core/graphql/uploads.js';

type GatewayGraphQLResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;

/** The largest subgraph answer read back (an upload's answer is one object). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** Replaces each upload by null in a copy of the variables (the spec's `operations`). */
function withoutUploads(value: unknown, depth = 0): unknown {
  if (value instanceof Upload) return null;
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => withoutUploads(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutUploads(v, depth + 1)]));
}

const quote = (s: string) => s.replace(/[\r\n"\\]/g, (c) => encodeURIComponent(c));

async function* multipartBody(boundary: string, operations: unknown, uploads: ReturnType<typeof uploadsIn>): AsyncGenerator<Buffer> {
  const field = (name: string, value: string) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  yield field('operations', JSON.stringify(operations));
  yield field('map', JSON.stringify(Object.fromEntries(uploads.map((u, i) => [String(i), [u.path]]))));
  for (const [i, { upload }] of uploads.entries()) {
    let file;
    try {
      file = await upload.promise;
    } catch {
      // Never received from the client: left out, the subgraph reports it missing.
      continue;
    }
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${i}"; filename="${quote(file.filename ?? 'file')}"\r\n` +
        `Content-Type: ${(file.mimetype || 'application/octet-stream').replace(/[\r\n]/g, '')}\r\n\r\n`,
    );
    for await (const chunk of file.createReadStream()) yield chunk as Buffer;
    yield Buffer.from('\r\n');
  }
  yield Buffer.from(`--${boundary}--\r\n`);
}

/** Fetches sent as multipart so far (tests and metrics read it). */
export const uploadForwarding = { requests: 0 };

/** True when this fetch's variables hold files. */
export function carriesUploads(options: GraphQLDataSourceProcessOptions<SubgraphContext>): boolean {
  return uploadsIn(options.request.variables).length > 0;
}

/**
 * Sends one subgraph fetch as a multipart request, streaming the files, and answers the
 * subgraph's JSON. `headers` carries the signed request context.
 */
export async function forwardMultipart(
  url: string,
  options: GraphQLDataSourceProcessOptions<SubgraphContext>,
  headers: Record<string, string>,
): Promise<GatewayGraphQLResponse> {
  const { request } = options;
  const variables = request.variables ?? {};
  const uploads = uploadsIn(variables);
  const operations = { query: request.query, operationName: request.operationName ?? null, variables: withoutUploads(variables) };
  uploadForwarding.requests++;
  const boundary = `----tenantry-upload-${crypto.randomBytes(12).toString('hex')}`;
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const req = client.request(target, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'apollo-require-preflight': 'true',
      accept: 'application/json',
    },
  });
  const answer = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  // The subgraph may answer (an error) before it has read every file: the answer wins.
  const sent = pipeline(Readable.from(multipartBody(boundary, operations, uploads)), req).catch((e: Error) => e);
  const res = await answer;
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      res.destroy();
      throw new Error(`The subgraph's answer to an upload exceeds ${MAX_ANSWER_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: GatewayGraphQLResponse;
  try {
    body = JSON.parse(text) as GatewayGraphQLResponse;
  } catch {
    const failed = await Promise.race([sent, Promise.resolve(undefined)]);
    throw new Error(`Subgraph upload answered ${res.statusCode} without JSON${failed ? ` (${failed.message})` : ''}.`);
  }
  // Any part of a file the subgraph did not read is dropped (the client's request still completes).
  discardUploads({ variables });
  return body;
}

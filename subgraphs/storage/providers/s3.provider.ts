// `object_store` on the S3 API (@aws-sdk/client-s3). All objects of the platform live in one S3
// bucket named by S3_BUCKET_PREFIX (created on first use); large bodies go up as multipart
// uploads (@aws-sdk/lib-storage: parts of 8 MiB, two in flight, aborted on failure, so memory
// stays bounded and no partial object becomes visible).
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../../core/config.js';
import { ProviderNotFound, type ByteRange, type StorageProvider } from './provider.js';

type S3Settings = NonNullable<StorageConfig['s3']>;

const PART_SIZE = 8 * 1024 * 1024;

export class S3Provider implements StorageProvider {
  readonly name = 'object_store' as const;
  readonly bucket: string;
  private readonly client: S3Client;
  private ready: Promise<void> | null = null;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucketPrefix;
    this.client = new S3Client({
      endpoint: settings.endpoint ?? undefined,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // Plain payloads (no aws-chunked trailers): every S3-compatible server understands them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Creates the S3 bucket once per process when it does not exist. */
  private ensureBucket(): Promise<void> {
    this.ready ??= (async () => {
      try {
        await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      } catch {
        await this.client.send(new CreateBucketCommand({ Bucket: this.bucket })).catch((e: { name?: string }) => {
          if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
        });
      }
    })().catch((e) => {
      this.ready = null;
      throw e;
    });
    return this.ready;
  }

  async put(key: string, body: Readable, contentType: string): Promise<void> {
    await this.ensureBucket();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType || 'application/octet-stream' },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
    });
    // A failing body must stop the upload; lib-storage aborts the multipart upload then.
    const onError = () => void upload.abort().catch(() => undefined);
    body.once('error', onError);
    try {
      await upload.done();
    } catch (e) {
      // The body's own failure (limit, disconnect) is the cause, not lib-storage's "aborted".
      throw body.errored ?? e;
    } finally {
      body.off('error', onError);
    }
    // The body may have failed after its last byte was read (e.g. the empty-file check at its end).
    if (body.errored) {
      await this.delete(key);
      throw body.errored;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    await this.ensureBucket();
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return out.Body as Readable;
    } catch (e) {
      if (
        (e as { name?: string }).name === 'NoSuchKey' ||
        (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
      ) {
        throw new ProviderNotFound(key);
      }
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.ensureBucket();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const keys = await this.listPage(prefix, 1000);
      if (keys.length === 0) return;
      // Up to 1000 keys per DeleteObjects call (seed 2 "Limits").
      await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
      );
    }
  }

  async copy(from: string, to: string): Promise<void> {
    await this.ensureBucket();
    try {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${encodeURI(from)}` }));
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey') throw new ProviderNotFound(from);
      throw e;
    }
  }

  async list(prefix: string): Promise<string[]> {
    await this.ensureBucket();
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  private async listPage(prefix: string, max: number): Promise<string[]> {
    await this.ensureBucket();
    const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: max }));
    return (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
  }

  close(): void {
    this.client.destroy();
  }
}

/**
 * Files sent in multipart bodies. The HTTP layer reads each file part with `readMultipartFile`,
 * which keeps its name and type beside the bytes, so a file field reaches the endpoint as an
 * `UploadedFile` value under whatever field name the client chose.
 */

/** One file of a multipart request. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly mimetype: string,
    readonly data: Buffer,
  ) {}
}

/** The parts of @fastify/multipart's file part this module reads. */
type FilePart = { filename: string; mimetype: string; toBuffer(): Promise<Buffer> };

/**
 * Reads a file part into an UploadedFile. NUL characters are dropped from the name: PostgreSQL
 * text cannot hold them (Zulip strips them too).
 */
export async function readMultipartFile(part: FilePart): Promise<UploadedFile> {
  const data = await part.toBuffer();
  return new UploadedFile(part.filename.replaceAll("\0", ""), part.mimetype, data);
}

/** Names of the body fields that hold files (never "ignored" parameters: any name is accepted). */
export function fileFieldNames(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((k) => {
    const v = body[k];
    return v instanceof UploadedFile || (Array.isArray(v) && v.some((item) => item instanceof UploadedFile));
  });
}

/** Every file among parsed parameter values, in field order. */
export function uploadedFiles(values: Record<string, unknown>): UploadedFile[] {
  return Object.values(values).flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is UploadedFile => v instanceof UploadedFile);
}

// The per-file lock model every rule reads. Built once per file; rules never re-parse calls.
import type { SourceFile } from 'ts-morph';
import type { HelperNames } from '../config';

export interface LockModel {
  sourceFile: SourceFile;
  text: string;
}

export function buildModel(sourceFile: SourceFile, _helpers: HelperNames): LockModel {
  return { sourceFile, text: sourceFile.getFullText() };
}

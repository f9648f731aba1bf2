/**
 * The Standard Schema and Standard JSON Schema interfaces (`~standard`), written out here as types
 * so that weft accepts zod 4, valibot, ArkType and any other implementer without depending on any
 * of them, nor on the spec package. Only the members weft reads are declared; the shapes follow the
 * published v1 interfaces, so a library's schema is assignable to them structurally.
 *
 * Types only: this file is imported by tool-definition.ts, which pool workers load with every tool.
 */

/** What the types of a schema say: what it accepts (input) and what it hands back (output). */
export interface StandardTypes<Input, Output> {
  readonly input: Input;
  readonly output: Output;
}

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** A Standard Schema (v1): a vendor, and a `validate` that returns the output value or issues. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
      options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
    ) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: StandardTypes<Input, Output> | undefined;
  };
}

/** The Standard JSON Schema (v1) converter a schema library may add beside `validate`. */
export interface StandardJsonSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/** The type a Standard Schema accepts. */
export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
/** The type a Standard Schema hands back once it has validated (defaults and transforms applied). */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];

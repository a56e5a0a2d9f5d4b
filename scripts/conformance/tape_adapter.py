"""
pytest plugin for ceph/s3-tests against the tape gateway (loaded with `-p tape_adapter` by
scripts/conformance/run.ts).

A bucket is a tape there: its name is the tape's label, and a credential reaches one tape only.
So each bucket name the suite asks for (get_new_bucket_name) is a new tape made by the runner
(POST $TAPE_CONFORMANCE_PROVISION: a funded owner, a tape delegated to the gateway, an S3
credential); CreateBucket of that name answers 200 without a request (the tape exists) and
DeleteBucket 204 (tapes are not deleted through S3); every request signed with the suite's
main key is signed with the credential of its bucket's tape instead. Until the suite creates
the bucket, its requests go to a label no tape has, so "no such bucket" tests still see one.

TAPE_CONFORMANCE_BUCKETS=shared (S3TESTS_BUCKETS=shared of the runner): every test gets the same
tapes instead, the first bucket a test asks for is shared tape 1, a second one shared tape 2, and
so on (made on first use). After each test the adapter empties the tapes it used through S3
(AbortMultipartUpload of every upload, DeleteObjects of every key) and checks that a listing is
then empty, so the next test starts on an empty bucket that has seen every earlier test's writes:
the same key written, deleted and written again within moments, which fresh tapes never show.
"""
import base64
import json
import os
import secrets
import urllib.request
from urllib.parse import urlsplit

import botocore.credentials
import botocore.session

import s3tests.functional as functional

PROVISION = os.environ['TAPE_CONFORMANCE_PROVISION']
SHARED = os.environ.get('TAPE_CONFORMANCE_BUCKETS', 'fresh') == 'shared'
MAIN_KEYS = {'TAPECONFORMANCEMAIN'}
# A client made with the main key and another secret (a bad-auth test) is left as it is.
MAIN_SECRET = 'not-a-secret-the-adapter-swaps-it'

# label -> {'label', 'accessKeyId', 'secret', 'created'}
TAPES = {}
LAST = {'tape': None}
# Shared mode: the shared tapes in the order first used, and how many the running test took.
SHARED_TAPES = []
USED = {'count': 0}


def _random_label():
    return base64.b32encode(secrets.token_bytes(32)).decode().lower().rstrip('=')


def _provision():
    with urllib.request.urlopen(urllib.request.Request(PROVISION, method='POST'), timeout=300) as res:
        tape = json.loads(res.read())
    tape['absent'] = _random_label()
    TAPES[tape['label']] = tape
    return tape


def _new_bucket_name():
    if SHARED:
        if USED['count'] == len(SHARED_TAPES):
            SHARED_TAPES.append(_provision())
        tape = SHARED_TAPES[USED['count']]
        USED['count'] += 1
    else:
        tape = _provision()
    tape['created'] = False
    LAST['tape'] = tape
    return tape['label']


def _no_prefixed_buckets(*args, **kwargs):
    # Every test gets new tapes: nothing to clean before or after.
    return None


def _empty_shared_tapes(*args, **kwargs):
    # Called before and after each test (once per user): empties the tapes the test just used.
    used, USED['count'] = SHARED_TAPES[: USED['count']], 0
    for tape in used:
        _empty(tape)


def _empty(tape):
    client = functional.get_client()  # signed with the tape's credential by _before_sign
    bucket = tape['label']
    tape['created'] = True
    for page in client.get_paginator('list_multipart_uploads').paginate(Bucket=bucket):
        for upload in page.get('Uploads', []):
            client.abort_multipart_upload(Bucket=bucket, Key=upload['Key'], UploadId=upload['UploadId'])
    for page in client.get_paginator('list_objects_v2').paginate(Bucket=bucket):
        keys = [{'Key': o['Key']} for o in page.get('Contents', [])]
        if keys:
            answer = client.delete_objects(Bucket=bucket, Delete={'Objects': keys, 'Quiet': True})
            if answer.get('Errors'):
                raise RuntimeError('emptying shared bucket {}: {}'.format(bucket, answer['Errors'][:3]))
    left = client.list_objects_v2(Bucket=bucket).get('KeyCount', 0)
    uploads = len(client.list_multipart_uploads(Bucket=bucket).get('Uploads', []))
    if left or uploads:
        raise RuntimeError('shared bucket {} not empty after emptying it: {} keys, {} uploads'.format(
            bucket, left, uploads))


functional.get_new_bucket_name = _new_bucket_name
functional.nuke_prefixed_buckets = _empty_shared_tapes if SHARED else _no_prefixed_buckets


class _Answer:
    def __init__(self, status):
        self.status_code = status
        self.headers = {}
        self.content = b''
        self.raw = None


def _before_call(model, params, **kwargs):
    bucket = _bucket_of(urlsplit(params.get('url', '')).path)
    tape = TAPES.get(bucket)
    if model.name == 'CreateBucket' and tape is not None:
        tape['created'] = True
        return _Answer(200), {'ResponseMetadata': {'HTTPStatusCode': 200}, 'Location': '/' + bucket}
    if model.name == 'DeleteBucket' and tape is not None:
        tape['created'] = False
        return _Answer(204), {'ResponseMetadata': {'HTTPStatusCode': 204}}
    if tape is not None and not tape['created']:
        # Not created yet (or deleted): a bucket that does not exist.
        parts = urlsplit(params['url'])
        path = '/' + tape['absent'] + parts.path[len('/' + bucket):]
        params['url'] = parts._replace(path=path).geturl()
    return None


def _bucket_of(path):
    return path.split('?')[0].lstrip('/').split('/')[0]


def _before_sign(request, request_signer, **kwargs):
    creds = request_signer._credentials
    original = getattr(request_signer, '_tape_original_key', None)
    if original is None:
        original = (creds.access_key, creds.secret_key) if creds is not None else ('', '')
        request_signer._tape_original_key = original
    if original != (next(iter(MAIN_KEYS)), MAIN_SECRET):
        return
    bucket = _bucket_of(urlsplit(request.url).path)
    tape = TAPES.get(bucket)
    if tape is None:
        tape = next((t for t in TAPES.values() if t['absent'] == bucket), None) or LAST['tape']
    if tape is None:
        return
    request_signer._credentials = botocore.credentials.Credentials(tape['accessKeyId'], tape['secret'])


_original_create_client = botocore.session.Session.create_client


def _create_client(self, *args, **kwargs):
    client = _original_create_client(self, *args, **kwargs)
    if client.meta.service_model.service_name == 's3':
        events = client.meta.events
        events.register('before-call.s3', _before_call)
        events.register('before-sign.s3', _before_sign)
    return client


botocore.session.Session.create_client = _create_client

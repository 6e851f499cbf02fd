cat <<EOF
{"a": 1}
